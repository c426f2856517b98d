import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type Config, writeSettings } from './config.ts';
import { type Clock, systemClock } from './core/clock.ts';
import { createMetrics } from './core/metrics.ts';
import { type CommandResult, controlSocketPath, startControlServer } from './db/control.ts';
import type { Database } from './db/database.ts';
import { trackPool } from './db/metrics.ts';
import { migrate, requireCurrentSchema } from './db/migrate.ts';
import { openStore } from './db/open.ts';
import { openPostgres } from './db/postgres.ts';
import { trackWebhookQueue } from './delivery/metrics.ts';
import { startWorker } from './delivery/start.ts';
import type { DeliveryWorker } from './delivery/worker.ts';
import { removeStaleFolders } from './documents/files.ts';
import { type Renderer, startRenderer } from './documents/renderer.ts';
import type { HealthCheck } from './health/routes.ts';
import { Activity } from './http/drain.ts';
import { createLinkPageLimiter } from './link-page/limits.ts';
import { mailerOf } from './mail/mailer.ts';
import { buildManagementApp } from './management/app.ts';
import { createRateLimiter } from './rate-limit/create.ts';
import { createFileWork, type FileWork } from './rendering/pool.ts';
import type { TypedFastify } from './routing/types.ts';
import { hasDemoTeam, isEmpty, renewDemoKey, renewDemoUser, seedDemo } from './seed/prepare.ts';
import { createReadingWriter } from './tracking/reading.ts';
import { createViewStartWriter } from './tracking/view-starts.ts';
import { openViewStartThread, type ViewStartThread } from './tracking/view-thread.ts';
import { buildWebApp } from './web/app.ts';
import { writeContexts } from './write/context.ts';

/** How long closing may take, the drain included, before the connections left are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;
/** Connections of the view-start thread's pool: one batch is written at a time, so one, and one spare. */
const VIEW_START_CONNECTIONS = 2;
/** Connections of the webhook worker's pool on PostgreSQL. */
const WORKER_CONNECTIONS = 4;

export interface ServerOptions {
  port: number;
  host: string;
  logger: Logger;
  /** Load the demo data into an empty store, or renew the demo key of a demo store. */
  demo?: boolean;
  /** Deliver webhooks in this process (true unless `serve --no-worker`). */
  worker?: boolean;
  /** Serve the link page on WEB_PORT (true unless `serve --no-web`). */
  web?: boolean;
  /** The web app's port, when not WEB_PORT (tests: 0, any free one). */
  webPort?: number;
  /** How long closing may take before the connections left are cut (SHUTDOWN_GRACE_MS). */
  shutdownGraceMs?: number;
  clock?: Clock;
  /**
   * How other `dealroom` commands are run while this process holds the embedded store: they
   * reach it through the control socket beside the lock, and run here on the open store
   * (the CLI passes its runner).
   */
  runCommand?: (db: Database, args: string[]) => Promise<CommandResult>;
}

/** A running service: its addresses, and the one way to stop it. */
export interface RunningServer {
  db: Database;
  /** The read API's base address; the management API's when ADMIN_TOKEN is set. */
  readApi: string;
  managementApi?: string | undefined;
  /** The web app's address (the link page), unless it is turned off. */
  webApp?: string | undefined;
  /** The demo team's new key, when `demo` loaded or renewed it. */
  demoKey?: string | undefined;
  /** The demo owner's dashboard sign-in, renewed with the key. */
  demoUser?: { email: string; password: string } | undefined;
  /**
   * Stops taking work: /readyz turns 503 at once, requests already received are answered,
   * the worker finishes its attempts in flight, then every connection and the store close.
   */
  close(): Promise<void>;
}

/**
 * The composition root: opens the store, migrates it (MIGRATE_ON_START), and builds every stateful part of a
 * serving process (limiter, view-start thread, write and worker pools, the listeners, the
 * webhook worker) from the one config, passing each in. Tests start the whole service here,
 * in process; `dealroom serve` adds the signals and the console.
 */
export async function startServer(config: Readonly<Config>, options: ServerOptions): Promise<RunningServer> {
  const { logger } = options;
  const clock = options.clock ?? systemClock;
  const { db, lock } = await openStore(config, (available, err) => {
    if (available) logger.info('database reachable again');
    else logger.error({ err }, 'database unreachable: requests fail with 500 until it answers again');
  });
  // Everything opened so far, closed in reverse order by close() or by a failed start.
  const closers: (() => Promise<unknown> | unknown)[] = [() => db.close()];
  const closeAll = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    // Migrating is an operator's step on PostgreSQL (dealroom migrate); the embedded store and
    // the demo, one process each, migrate as they start unless told not to.
    if (config.migrateOnStart ?? (!config.databaseUrl || options.demo === true)) {
      const applied = await migrate(db);
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    } else {
      await requireCurrentSchema(db);
    }
    // The threads that read, draw and stamp files: no listener's thread touches a file's contents.
    // Files in transit left by processes that were killed are removed now (files.ts).
    const stale = await removeStaleFolders();
    if (stale > 0) logger.info({ folders: stale }, 'files left in transit by stopped processes removed');
    const files = createFileWork(config.files);
    closers.push(() => files.close());
    const demoKey = options.demo ? await prepareDemo(db, clock, files) : undefined;
    const demoUser = demoKey ? await renewDemoUser(db, clock) : undefined;
    // Every uploaded version is rendered to page images in the background, page 1 first.
    const renderer: Renderer = startRenderer({ db, work: files, clock, log: logger });
    closers.push(() => renderer.stop());

    const metrics = createMetrics().withDefaults();
    const { limiter, healthChecks } = createRateLimiter(
      config.rateLimits,
      config.redisUrl,
      logger,
      metrics,
      config.redisKeyPrefix,
    );
    closers.push(() => limiter.close());
    trackWebhookQueue(metrics, db, clock);

    // The one factory of write contexts, per pool: every event a write records is counted
    // (dealroom_events_recorded_total) and wakes the in-process webhook worker.
    const writesOn = (store: Database) =>
      writeContexts({
        db: store,
        clock,
        ...writeSettings(config),
        metrics,
        onEvents: (events) => {
          worker?.wake();
          if (events.some((e) => e.type === 'document.created' || e.type === 'document.updated'))
            renderer.wake();
        },
      });
    trackPool(metrics, db, 'main');

    let closing = false;
    // From close() on, /readyz answers 503 so a load balancer stops sending requests,
    // while every request already received is still answered.
    const draining: HealthCheck = {
      name: 'shutdown',
      async check() {
        if (closing) throw new Error('shutting down');
      },
    };
    const activity = new Activity(() => closing);
    const app = await buildApp({
      db,
      clock,
      appUrl: config.appUrl,
      logger,
      rateLimiter: limiter,
      metrics,
      healthChecks: [...healthChecks, draining],
      analyticsCacheBytes: config.analyticsCacheMb * 2 ** 20,
      listCacheBytes: config.listCacheMb * 2 ** 20,
    });
    activity.track(app);
    closers.push(() => app.close());
    const listeners: TypedFastify[] = [app];

    let worker: DeliveryWorker | undefined;
    let closeControl: (() => unknown) | undefined;
    let managementApi: string | undefined;
    let webApp: string | undefined;
    const wantsWeb = options.web !== false;
    if (config.management.adminToken || wantsWeb) {
      // On PostgreSQL the writes get a pool of their own: a burst of tracking writes
      // waiting on a busy room's row locks cannot take the connections reads need.
      const writeDb = config.databaseUrl ? await openPostgresPool(config, config.pool.size) : undefined;
      if (writeDb) {
        closers.push(() => writeDb.close());
        trackPool(metrics, writeDb, 'writes');
      }
      const writeContext = writesOn(writeDb ?? db);
      // View starts, the bulk of live tracking, are written in a thread of their own there,
      // so that their transactions' round trips do not queue behind the read requests.
      const viewThread: ViewStartThread | undefined = config.databaseUrl
        ? await openViewStartThread({
            connectionString: config.databaseUrl,
            maxConnections: VIEW_START_CONNECTIONS,
            maxWaiting: config.pool.maxWaiting,
            maxWaitMs: config.pool.maxWaitMs,
          })
        : undefined;
      if (viewThread) closers.push(() => viewThread.close());
      const startView = viewThread?.startView ?? createViewStartWriter();
      if (config.management.adminToken) {
        const management = await buildManagementApp({
          db: writeDb ?? db,
          startView,
          clock,
          adminToken: config.management.adminToken,
          fileMaxBytes: config.web.fileMaxBytes,
          files,
          logger,
          metrics,
          writeContext,
        });
        activity.track(management);
        closers.push(() => management.close());
        managementApi = await management.listen({
          port: config.management.port,
          host: config.management.host,
        });
        listeners.push(management);
      }
      if (wantsWeb) {
        const mailer = mailerOf(config.mail);
        const linkLimiter = createLinkPageLimiter(config.linkPages, {
          redisUrl: config.redisUrl,
          keyPrefix: config.redisKeyPrefix,
          logger,
          metrics,
        });
        closers.push(() => linkLimiter.close());
        if (mailer) closers.push(() => mailer.close());
        const web = await buildWebApp({
          db: writeDb ?? db,
          startView,
          clock,
          appUrl: config.appUrl,
          logger,
          metrics,
          allowPrivateUrls: config.webhooks.allowPrivateUrls,
          fileMaxBytes: config.web.fileMaxBytes,
          files,
          linkLimiter,
          sessionIdleMs: config.dashboardIdleHours * 3_600_000,
          mailer,
          writeContext,
          reportReading: createReadingWriter(),
          wantPages: (versionId) => renderer.want(versionId),
        });
        activity.track(web);
        closers.push(() => web.close());
        webApp = await web.listen({ port: options.webPort ?? config.web.port, host: config.web.host });
        listeners.push(web);
      }
    }

    // The read API listens last: once its /readyz answers, every enabled listener does.
    const readApi = await app.listen({ port: options.port, host: options.host });
    const { runCommand } = options;
    const socket = lock ? controlSocketPath(resolve(config.dataDir)) : undefined;
    if (lock && socket && runCommand) {
      const control = await startControlServer(socket, lock.setSocket(socket), (args) =>
        runCommand(db, args),
      );
      closeControl = () => control.close();
      closers.push(closeControl);
    } else if (lock && runCommand) {
      logger.warn(
        'the data folder path is too long for a control socket: other dealroom commands must wait until this server stops',
      );
    }

    if (options.worker !== false) {
      // On PostgreSQL the worker's claims and records get connections of their own.
      const workerDb = config.databaseUrl
        ? await openPostgres({ connectionString: config.databaseUrl, maxConnections: WORKER_CONNECTIONS })
        : undefined;
      if (workerDb) {
        closers.push(() => workerDb.close());
        trackPool(metrics, workerDb, 'worker');
      }
      const started = startWorker(config, workerDb ?? db, logger, metrics, writesOn(workerDb ?? db));
      worker = started;
      closers.push(() => started.stop());
    }

    let stopped: Promise<void> | undefined;
    return {
      db,
      readApi,
      managementApi,
      webApp,
      demoKey,
      demoUser,
      close() {
        stopped ??= (async () => {
          closing = true;
          closeControl?.();
          // One grace period for the whole close, the drain included.
          const by = Date.now() + (options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
          await activity.drained(by);
          // A connection that opened but never sent a request would hold close() open until
          // the headers timeout; once the grace period is over every connection left is cut.
          const cut = setTimeout(
            () => {
              logger.warn('grace period over: closing the connections still open');
              for (const listener of listeners) listener.server.closeAllConnections();
            },
            Math.max(0, by - Date.now()),
          );
          try {
            await closeAll();
          } finally {
            clearTimeout(cut);
          }
        })();
        return stopped;
      },
    };
  } catch (err) {
    // Listening with a store that cannot be run would answer every request with a 500.
    await closeAll();
    throw err;
  }
}

function openPostgresPool(config: Readonly<Config>, maxConnections: number): Promise<Database> {
  return openPostgres({
    connectionString: config.databaseUrl as string,
    maxConnections,
    maxWaiting: config.pool.maxWaiting,
    maxWaitMs: config.pool.maxWaitMs,
  });
}

async function prepareDemo(db: Database, clock: Clock, files: FileWork): Promise<string | undefined> {
  if (await isEmpty(db)) return seedDemo(db, clock, files);
  if (await hasDemoTeam(db)) return renewDemoKey(db, clock);
  console.log('The database holds data other than the demo; not seeding it.');
  return undefined;
}

import type { Server } from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../app.ts';
import { type Config, parsePort } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openStore } from '../db/open.ts';
import { openPostgres } from '../db/postgres.ts';
import { trackWebhookQueue } from '../delivery/metrics.ts';
import type { DeliveryWorker } from '../delivery/worker.ts';
import type { HealthCheck } from '../health/routes.ts';
import { buildManagementApp } from '../management/app.ts';
import { createRateLimiter } from '../rate-limit/create.ts';
import { openViewStartThread, type ViewStartThread } from '../tracking/view-thread.ts';
import { runCaptured } from './commands.ts';
import { UsageError } from './context.ts';
import { controlSocketPath, startControlServer } from './control.ts';
import { createLogger } from './logger.ts';
import { hasDemoTeam, isEmpty, renewDemoKey, seedDemo } from './seed.ts';
import { startWorker } from './worker.ts';

/** How long requests in flight get to finish before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long no request may arrive before a draining server closes. */
const DRAIN_QUIET_MS = 300;

/**
 * Runs the read API until SIGTERM or SIGINT, then stops taking connections, lets requests
 * in flight finish, and closes the store. Resolves with the exit code.
 */

/** Connections of the view-start thread's pool: one batch is written at a time, so one, and one spare. */
const VIEW_START_CONNECTIONS = 2;

export async function serve(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      demo: { type: 'boolean' },
      'no-worker': { type: 'boolean' },
    },
  });
  const problems: string[] = [];
  const port = parsePort(values.port, config.port, '--port', problems);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const host = values.host ?? config.host;
  const logger = createLogger(config.logLevel);
  const clock = systemClock;

  const { db, lock } = await openStore(config, (available, err) => {
    if (available) logger.info('database reachable again');
    else logger.error({ err }, 'database unreachable: requests fail with 500 until it answers again');
  });
  let control: Server | undefined;
  let writeDb: Database | undefined;
  let viewThread: ViewStartThread | undefined;
  let workerDb: Database | undefined;
  let worker: DeliveryWorker | undefined;
  let stopLimiter: (() => Promise<void>) | undefined;
  try {
    await migrate(db);
    const demoKey = values.demo ? await prepareDemo(db) : undefined;

    const metrics = createMetrics().withDefaults();
    const { limiter, healthChecks } = createRateLimiter(
      config.rateLimits,
      config.redisUrl,
      logger,
      metrics,
      config.redisKeyPrefix,
    );
    stopLimiter = () => limiter.close();
    trackWebhookQueue(metrics, db, clock);
    let closing = false;
    // From the signal on, /readyz answers 503 so a load balancer stops sending requests,
    // while every request already received is still answered.
    const draining: HealthCheck = {
      name: 'shutdown',
      async check() {
        if (closing) throw new Error('shutting down');
      },
    };
    const app = await buildApp({
      db,
      clock,
      appUrl: config.appUrl,
      logger,
      rateLimiter: limiter,
      metrics,
      healthChecks: [...healthChecks, draining],
    });
    const activity = { inFlight: 0, lastAt: Date.now() };
    // Responses finished during shutdown close their connection, so keep-alive clients
    // do not hold the server open once their last request is answered.
    const trackActivity = (server: typeof app) => {
      server.addHook('onSend', async (_request, reply, payload) => {
        if (closing) reply.header('Connection', 'close');
        return payload;
      });
      server.addHook('onRequest', async () => {
        activity.inFlight++;
        activity.lastAt = Date.now();
      });
      server.addHook('onResponse', async () => {
        activity.inFlight--;
        activity.lastAt = Date.now();
      });
    };
    trackActivity(app);
    const base = await app.listen({ port, host });
    let management: Awaited<ReturnType<typeof buildManagementApp>> | undefined;
    try {
      if (config.management.adminToken) {
        // On PostgreSQL the writes get a pool of their own: a burst of tracking writes
        // waiting on a busy room's row locks cannot take the connections reads need.
        writeDb = config.databaseUrl
          ? await openPostgres({
              connectionString: config.databaseUrl,
              maxConnections: config.pool.size,
              maxWaiting: config.pool.maxWaiting,
              maxWaitMs: config.pool.maxWaitMs,
            })
          : undefined;
        // View starts, the bulk of live tracking, are written in a thread of their own there,
        // so that their transactions' round trips do not queue behind the read requests.
        viewThread = config.databaseUrl
          ? await openViewStartThread({
              connectionString: config.databaseUrl,
              maxConnections: VIEW_START_CONNECTIONS,
              maxWaiting: config.pool.maxWaiting,
              maxWaitMs: config.pool.maxWaitMs,
            })
          : undefined;
        management = await buildManagementApp({
          db: writeDb ?? db,
          startView: viewThread?.startView,
          clock,
          appUrl: config.appUrl,
          adminToken: config.management.adminToken,
          allowPrivateUrls: config.webhooks.allowPrivateUrls,
          logger,
          metrics,
          onEvents: () => worker?.wake(),
        });
        trackActivity(management);
        const managementBase = await management.listen({
          port: config.management.port,
          host: config.management.host,
        });
        console.log(`Management API listening on ${managementBase} (Authorization: Bearer $ADMIN_TOKEN)`);
      }
      const socket = lock ? controlSocketPath(resolve(config.dataDir)) : undefined;
      if (lock && socket) {
        const secret = lock.setSocket(socket);
        control = await startControlServer(socket, secret, (commandArgs) =>
          runCaptured({ config, db, clock }, commandArgs),
        );
      } else if (lock) {
        logger.warn(
          'the data folder path is too long for a control socket: other dealroom commands must wait until this server stops',
        );
      }
    } catch (err) {
      // Listening with a store that cannot be run would answer every request with a 500.
      await management?.close();
      await app.close();
      throw err;
    }
    if (!values['no-worker']) {
      // On PostgreSQL the worker's claims and records get connections of their own.
      workerDb = config.databaseUrl
        ? await openPostgres({ connectionString: config.databaseUrl, maxConnections: 4 })
        : undefined;
      worker = startWorker(config, workerDb ?? db, logger, metrics);
    }
    console.log(`Deal Room Analytics API listening on ${base} (${db.kind} store)`);
    if (demoKey) printDemo(base, demoKey);

    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        closing = true;
        logger.info({ signal }, 'shutting down: finishing requests in flight');
        resolve();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    control?.close();
    // Drain before closing: close() also drops idle keep-alive connections, and one whose
    // request is read but not yet parsed (a busy event loop) looks idle. So the server
    // keeps listening until nothing is in flight and no request has come for a moment.
    const drainedBy = Date.now() + SHUTDOWN_GRACE_MS;
    while (
      Date.now() < drainedBy &&
      (activity.inFlight > 0 || Date.now() - activity.lastAt < DRAIN_QUIET_MS)
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    // A connection that opened but never sent a request would hold close() open until
    // the headers timeout; after the grace period every connection left is cut.
    const cut = setTimeout(() => {
      logger.warn('grace period over: closing the connections still open');
      app.server.closeAllConnections();
      management?.server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    await Promise.all([app.close(), management?.close(), worker?.stop()]);
    clearTimeout(cut);
    logger.info('stopped');
    return 0;
  } finally {
    control?.close();
    await stopLimiter?.();
    await worker?.stop();
    await workerDb?.close();
    await viewThread?.close();
    await writeDb?.close();
    await db.close();
  }

  async function prepareDemo(database: typeof db): Promise<string | undefined> {
    if (await isEmpty(database)) return seedDemo(database, clock);
    if (await hasDemoTeam(database)) return renewDemoKey(database, clock);
    console.log('The database holds data other than the demo; not seeding it.');
    return undefined;
  }
}

function printDemo(base: string, key: string): void {
  console.log(`
Demo data is loaded. Your API key (shown once; a new one is made at each start with --demo):

  ${key}

Try:
  curl -H "Authorization: Bearer ${key}" ${base}/v1/deal-rooms
`);
}

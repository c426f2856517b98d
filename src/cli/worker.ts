import { parseArgs } from 'node:util';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { StoreBusyError } from '../db/lock.ts';
import { migrate } from '../db/migrate.ts';
import { openStore } from '../db/open.ts';
import type { Metrics } from '../http/metrics.ts';
import { systemClock } from '../shared/clock.ts';
import { DeliveryWorker, type WorkerLogger } from '../webhooks/worker.ts';
import { UsageError } from './context.ts';
import { createLogger } from './logger.ts';

/** Who is calling, in every delivery's User-Agent. */
export const WEBHOOK_USER_AGENT = 'DealRoomAnalytics-Webhooks/1.0';

/** The webhook worker on a store, as configured; started. */
export function startWorker(
  config: Readonly<Config>,
  db: Database,
  logger: WorkerLogger,
  metrics?: Metrics,
): DeliveryWorker {
  const worker = new DeliveryWorker({
    db,
    clock: systemClock,
    logger,
    metrics,
    appUrl: config.appUrl,
    retryBaseMs: config.webhooks.retryBaseMs,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivateUrls: config.webhooks.allowPrivateUrls,
    userAgent: WEBHOOK_USER_AGENT,
  });
  worker.start();
  return worker;
}

/**
 * `dealroom worker`: delivers webhooks until SIGTERM or SIGINT, then lets the attempts in
 * flight finish. Run as many as needed on one PostgreSQL; the embedded store's worker runs
 * inside `dealroom serve`.
 */
export async function workerCommand(config: Readonly<Config>, args: string[]): Promise<number> {
  parseArgs({ args, options: {} });
  const logger = createLogger(config.logLevel);
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    opened = await openStore(config, (available, err) => {
      if (!available) logger.error({ err }, 'database unreachable: deliveries wait until it answers again');
    });
  } catch (err) {
    if (err instanceof StoreBusyError) {
      throw new UsageError(
        `the embedded store in ${err.dataDir} is in use by dealroom serve (process ${err.holder.pid}), which runs the webhook worker itself; a separate worker needs PostgreSQL (DATABASE_URL)`,
      );
    }
    throw err;
  }
  const { db } = opened;
  try {
    await migrate(db);
    const worker = startWorker(config, db, logger);
    console.log(`Webhook worker running (${db.kind} store)`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'stopping: finishing the deliveries in flight');
        resolve();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    await worker.stop();
    logger.info('stopped');
    return 0;
  } finally {
    await db.close();
  }
}

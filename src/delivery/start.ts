import type { Config } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import type { Metrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { DeliveryWorker, type WorkerLogger } from './worker.ts';

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

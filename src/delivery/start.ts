import { type Config, writeSettings } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import type { Metrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { mailerOf } from '../mail/mailer.ts';
import { type WriteContexts, writeContexts } from '../write/context.ts';
import { WEBHOOK_USER_AGENT } from './sender.ts';
import { DeliveryWorker, type WorkerLogger } from './worker.ts';

/**
 * The worker on a store, as configured (webhooks, and notifications through SMTP_URL);
 * started. Its writes go through the process's write contexts (`writeContext`), or, run
 * alone (`dealroom worker`), through its own: counted in `metrics`, each waking it.
 */
export function startWorker(
  config: Readonly<Config>,
  db: Database,
  logger: WorkerLogger,
  metrics?: Metrics,
  writeContext?: WriteContexts,
): DeliveryWorker {
  let worker: DeliveryWorker | undefined;
  const writes =
    writeContext ??
    writeContexts({
      db,
      clock: systemClock,
      ...writeSettings(config),
      metrics,
      onEvents: () => worker?.wake(),
    });
  worker = new DeliveryWorker({
    db,
    clock: systemClock,
    logger,
    metrics,
    appUrl: config.appUrl,
    retryBaseMs: config.webhooks.retryBaseMs,
    timeoutMs: config.webhooks.timeoutMs,
    allowPrivateUrls: config.webhooks.allowPrivateUrls,
    userAgent: WEBHOOK_USER_AGENT,
    writeContext: writes,
    mailer: mailerOf(config.mail),
  });
  worker.start();
  return worker;
}

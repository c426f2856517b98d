import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../core/clock.ts';
import { type Metrics, ownMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { type QueueStats, queueStats } from './queue.ts';

/** What the delivery workers of this process count. */
export const deliveryMetrics = ownMetrics((registry: Registry) => {
  return {
    attempts: new Counter({
      name: 'dealroom_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by result (succeeded or failed)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'dealroom_webhook_dead_letters_total',
      help: 'Deliveries this process moved to the dead-letter queue',
      registers: [registry],
    }),
  };
});

/**
 * The webhook queue as every worker shares it, read from the database when /metrics is
 * scraped: deliveries pending, the oldest one's age, dead letters not replayed.
 */
export function trackWebhookQueue(metrics: Metrics, db: Database, clock: Clock): void {
  if (metrics.registry.getSingleMetric('dealroom_webhook_queue_depth')) return;
  const registers = [metrics.registry];
  let reading: Promise<QueueStats | undefined> | undefined;
  // One query serves the three gauges of a scrape.
  const stats = () => {
    reading ??= queueStats(db, clock.now())
      .catch(() => undefined)
      .finally(() =>
        setTimeout(() => {
          reading = undefined;
        }, 100).unref(),
      );
    return reading;
  };
  const gauges: [string, string, (read: QueueStats) => number][] = [
    [
      'dealroom_webhook_queue_depth',
      'Webhook deliveries pending (due, waiting for a retry, or being attempted)',
      (read) => read.pending,
    ],
    [
      'dealroom_webhook_oldest_pending_seconds',
      'Age of the oldest pending webhook delivery',
      (read) => read.oldestPendingSeconds,
    ],
    ['dealroom_webhook_dead_letters', 'Dead letters not replayed', (read) => read.deadLetters],
  ];
  for (const [name, help, pick] of gauges) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const read = await stats();
        if (read) this.set(pick(read));
      },
    });
  }
}

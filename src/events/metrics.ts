import { Counter, type Registry } from 'prom-client';
import { type Metrics, ownMetrics } from '../core/metrics.ts';

/** What the outbox counts: the events writes of this process committed. */
export const outboxMetrics = ownMetrics((registry: Registry) => {
  return {
    eventsRecorded: new Counter({
      name: 'dealroom_events_recorded_total',
      help: 'Webhook events recorded in the outbox, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
  };
});

/** Counts the events of a committed write. */
export function countRecorded(metrics: Metrics, events: readonly { type: string }[]): void {
  const { eventsRecorded } = outboxMetrics(metrics);
  for (const event of events) eventsRecorded.inc({ type: event.type });
}

import type { Metrics } from '../core/metrics.ts';
import type { RecordedEvent } from '../events/catalogue.ts';
import { countRecorded } from '../events/metrics.ts';
import type { WriteContext } from './transaction.ts';

/** What every write of a process shares: the store, the clock and the settings, its metrics, who to wake. */
export interface WriteSetup
  extends Pick<
    WriteContext,
    'db' | 'clock' | 'appUrl' | 'allowPrivateUrls' | 'mailConfigured' | 'visitEmailDelayMs'
  > {
  /** Counts every event a write commits (dealroom_events_recorded_total). */
  metrics?: Metrics | undefined;
  /** Told when a write has committed events (the in-process webhook worker wakes). */
  onEvents?: ((events: readonly RecordedEvent[]) => void) | undefined;
}

/** What a write adds to its process's setup: who acts, for which team, how it is logged, its retry key. */
export type WriteExtras = Partial<Pick<WriteContext, 'idempotency' | 'actor' | 'teamId' | 'audit'>>;

/** Makes the context of each write of a process. */
export type WriteContexts = (extras?: WriteExtras) => WriteContext;

/**
 * The one factory of write contexts, made at the composition root and handed to the
 * management API, the web app and the webhook worker: wherever an event is recorded, it is
 * counted and the worker is woken.
 */
export function writeContexts(setup: WriteSetup): WriteContexts {
  const onCommitted = (events: readonly RecordedEvent[]) => {
    if (setup.metrics) countRecorded(setup.metrics, events);
    if (events.length > 0) setup.onEvents?.(events);
  };
  return (extras = {}) => ({
    db: setup.db,
    clock: setup.clock,
    appUrl: setup.appUrl,
    allowPrivateUrls: setup.allowPrivateUrls,
    mailConfigured: setup.mailConfigured,
    visitEmailDelayMs: setup.visitEmailDelayMs,
    onCommitted,
    ...extras,
  });
}

/** A write by a visitor of the web app: a link's recipient, or a person signing in. */
export const VISITOR: WriteExtras = { actor: { kind: 'visitor' } };

/** A write the service makes of itself (the webhook worker's link.expired, silent views completed). */
export const SYSTEM: WriteExtras = { actor: { kind: 'system' } };

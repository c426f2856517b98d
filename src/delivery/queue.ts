import { randomUUID } from 'node:crypto';
import { newId } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';
import type { EventType } from '../events/catalogue.ts';

/**
 * The delivery queue in the database: the worker claims due deliveries with row locks
 * (SKIP LOCKED, so any number of workers share it) and a lease, and records each attempt's
 * result only while its claim holds.
 */

/** A delivery a worker has claimed: what to send, where, signed with which secrets. */
export interface ClaimedDelivery {
  id: string;
  eventId: string;
  endpointId: string;
  teamId: string;
  type: EventType;
  url: string;
  /** The current secret, and the previous one while it still signs after a rotation. */
  secrets: string[];
  /** The event's payload, exactly as stored. */
  body: string;
  /** Attempts before this one. */
  attempts: number;
  claimToken: string;
}

export interface ClaimRequest {
  now: Date;
  /** The claim lapses then, and another worker may take the delivery. */
  leaseUntil: Date;
  /** At most this many in all. */
  limit: number;
  /** At most this many in flight per endpoint, counting `busy`. */
  perEndpoint: number;
  /** Deliveries this worker has in flight, by endpoint. */
  busy: ReadonlyMap<string, number>;
}

/**
 * Claims due deliveries, endpoint by endpoint, so that an endpoint with a backlog (or a
 * slow one, with all its slots taken) never holds up another's. A disabled endpoint's
 * pending deliveries wait until it is enabled again.
 */
export async function claimDeliveries(db: Queryable, request: ClaimRequest): Promise<ClaimedDelivery[]> {
  const token = randomUUID();
  const rows = await db.query<{
    id: string;
    event_id: string;
    endpoint_id: string;
    attempts: number;
    type: EventType;
    team_id: string;
    body: string;
    url: string;
    secret: string;
    previous_secrets: string[];
  }>(
    `WITH room AS (
       SELECT e.id, $3::int - coalesce(b.n, 0) AS free
         FROM webhook_endpoints e
         LEFT JOIN unnest($1::uuid[], $2::int[]) AS b (id, n) ON b.id = e.id
        WHERE e.enabled
     ), picked AS (
       SELECT p.id
         FROM room CROSS JOIN LATERAL (
                SELECT d.id FROM webhook_deliveries d
                 WHERE d.endpoint_id = room.id AND d.state = 'pending' AND d.next_attempt_at <= $4
                 ORDER BY d.next_attempt_at
                 LIMIT room.free
                   FOR UPDATE SKIP LOCKED
              ) p
        WHERE room.free > 0
        LIMIT $5
     )
     UPDATE webhook_deliveries d
        SET next_attempt_at = $6, claim_token = $7, updated_at = $4
       FROM picked, webhook_events ev, webhook_endpoints e
      WHERE d.id = picked.id AND ev.id = d.event_id AND e.id = d.endpoint_id
     RETURNING d.id, d.event_id, d.endpoint_id, d.attempts, ev.type, ev.team_id, ev.payload::text AS body,
               e.url, e.secret,
               (SELECT coalesce(jsonb_agg(p->>'secret'), '[]'::jsonb) FROM jsonb_array_elements(e.previous_secrets) p
                 WHERE (p->>'expiresAt')::timestamptz > $4) AS previous_secrets`,
    [
      [...request.busy.keys()],
      [...request.busy.values()],
      request.perEndpoint,
      request.now,
      request.limit,
      request.leaseUntil,
      token,
    ],
    // Run after every batch of events, by every worker: parsed and planned once per connection,
    // where parsing and planning took ten times as long as running it.
    { prepared: 'claim-deliveries' },
  );
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    teamId: row.team_id,
    type: row.type,
    url: row.url,
    // The current secret, then each earlier one still within its 24 hours.
    secrets: [row.secret, ...row.previous_secrets],
    body: row.body,
    attempts: row.attempts,
    claimToken: token,
  }));
}

/** One attempt's result and what comes next. */
export interface AttemptRecord {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  status: number | null;
  /**
   * As the team sees it: how long the answer took, or 0 when none came, so the attempt list
   * cannot tell a refused port from a silent one.
   */
  durationMs: number;
  error: string | null;
  /** The operator's reason and the real time taken (logged, not recorded). */
  detail?: string | undefined;
  elapsedMs?: number | undefined;
  next: { state: 'succeeded' } | { state: 'pending'; at: Date } | { state: 'dead' };
}

/**
 * Records attempts in one statement: each attempt always (it happened), and, for each
 * delivery whose claim is still this worker's, what comes next: succeeded, pending again
 * for its retry, or dead with its dead letter (a delivery that fails again after a replay
 * has its dead letter listed again). Returns the ids of the deliveries moved on; one left
 * out had its claim lapse, and another worker owns it now.
 */
export async function recordAttempts(db: Queryable, records: readonly AttemptRecord[]): Promise<Set<string>> {
  if (records.length === 0) return new Set();
  const column = <T>(pick: (record: AttemptRecord) => T) => records.map(pick);
  const rows = await db.query<{ id: string }>(
    `WITH input AS (
       SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int[], $5::int[], $6::text[],
                            $7::text[], $8::timestamptz[], $9::uuid[], $10::uuid[], $11::uuid[])
         AS i (attempt_id, delivery_id, attempted_at, status, duration_ms, error, state, next_at, token, dead_id, team_id)
     ), attempt AS (
       INSERT INTO webhook_attempts (id, delivery_id, endpoint_id, event_id, attempted_at, status, duration_ms, error)
       SELECT i.attempt_id, d.id, d.endpoint_id, d.event_id, i.attempted_at, i.status, i.duration_ms, i.error
         FROM input i JOIN webhook_deliveries d ON d.id = i.delivery_id
     ), moved AS (
       UPDATE webhook_deliveries d
          SET state = i.state, attempts = d.attempts + 1, next_attempt_at = i.next_at, claim_token = NULL,
              last_status = i.status, last_error = i.error, updated_at = i.attempted_at
         FROM input i
        WHERE d.id = i.delivery_id AND d.claim_token = i.token
       RETURNING d.id
     ), dead AS (
       INSERT INTO webhook_dead_letters (id, delivery_id, team_id, failed_at)
       SELECT i.dead_id, i.delivery_id, i.team_id, i.attempted_at
         FROM input i JOIN moved ON moved.id = i.delivery_id
        WHERE i.state = 'dead'
       ON CONFLICT (delivery_id) DO UPDATE SET failed_at = excluded.failed_at, replayed_at = NULL
     )
     SELECT id FROM moved`,
    [
      column((r) => newId(r.attemptedAt.getTime())),
      column((r) => r.delivery.id),
      column((r) => r.attemptedAt),
      column((r) => r.status),
      column((r) => r.durationMs),
      column((r) => r.error),
      column((r) => r.next.state),
      column((r) => (r.next.state === 'pending' ? r.next.at : r.attemptedAt)),
      column((r) => r.delivery.claimToken),
      column((r) => newId(r.attemptedAt.getTime())),
      column((r) => r.delivery.teamId),
    ],
  );
  return new Set(rows.map((row) => row.id));
}

/** Gives back claims not attempted (a worker stopping): due again at once, for any worker. */
export async function releaseClaims(db: Queryable, deliveries: ClaimedDelivery[], now: Date): Promise<void> {
  if (deliveries.length === 0) return;
  await db.query(
    `UPDATE webhook_deliveries SET next_attempt_at = $3, claim_token = NULL
      WHERE id = ANY ($1::uuid[]) AND claim_token = $2`,
    [deliveries.map((d) => d.id), deliveries[0]?.claimToken, now],
  );
}

export interface QueueStats {
  /** Deliveries waiting: due, in backoff, or claimed. */
  pending: number;
  /** Seconds since the oldest pending delivery's event was recorded; 0 when none waits. */
  oldestPendingSeconds: number;
  /** Dead letters not replayed. */
  deadLetters: number;
}

export async function queueStats(db: Queryable, now: Date): Promise<QueueStats> {
  const [row] = await db.query<{ pending: number; oldest: Date | null; dead: number }>(
    `SELECT (SELECT count(*)::int FROM webhook_deliveries WHERE state = 'pending') AS pending,
            (SELECT min(created_at) FROM webhook_deliveries WHERE state = 'pending') AS oldest,
            (SELECT count(*)::int FROM webhook_dead_letters WHERE replayed_at IS NULL) AS dead`,
  );
  return {
    pending: row?.pending ?? 0,
    oldestPendingSeconds: row?.oldest ? Math.max(0, (now.getTime() - row.oldest.getTime()) / 1000) : 0,
    deadLetters: row?.dead ?? 0,
  };
}

/** Forgets attempts made before `before`. */
export async function pruneAttempts(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM webhook_attempts WHERE attempted_at < $1', [before]);
  await db.query('DELETE FROM webhook_test_sends WHERE sent_at < $1', [before]);
}

/** Events pruned per statement, so a first pruning of a large outbox holds no long lock. */
const EVENTS_PER_PRUNE = 5000;

/**
 * Forgets events made before `before` whose every delivery succeeded (or that had none),
 * with their deliveries and attempts: a pending delivery, or a dead letter that may still be
 * replayed, keeps its event. Returns how many went.
 */
export async function pruneEvents(db: Queryable, before: Date): Promise<number> {
  let pruned = 0;
  for (;;) {
    const rows = await db.query<{ id: string }>(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT e.id FROM webhook_events e
          WHERE e.created_at < $1
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state <> 'succeeded')
          ORDER BY e.created_at LIMIT $2)
       RETURNING id`,
      [before, EVENTS_PER_PRUNE],
    );
    pruned += rows.length;
    if (rows.length < EVENTS_PER_PRUNE) return pruned;
  }
}

/**
 * Removes the events of deleted rooms (marked by the deletion: events/outbox.ts) once
 * nothing is pending for them, with their deliveries, dead letters and attempts: their
 * payloads hold the room's viewers' emails. Returns how many went.
 */
export async function pruneDeletedRoomEvents(db: Queryable): Promise<number> {
  let pruned = 0;
  for (;;) {
    const rows = await db.query<{ id: string }>(
      `DELETE FROM webhook_events WHERE id IN (
         SELECT e.id FROM webhook_events e
          WHERE e.room_deleted
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.state = 'pending')
          LIMIT $1)
       RETURNING id`,
      [EVENTS_PER_PRUNE],
    );
    pruned += rows.length;
    if (rows.length < EVENTS_PER_PRUNE) return pruned;
  }
}

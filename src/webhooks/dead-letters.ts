import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { EventType } from '../outbox/record.ts';
import { isUuid } from '../shared/ids.ts';
import { teamExists } from '../write/load.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';

/** One delivery attempt, as contract.md section 4 gives it. */
export interface WebhookAttempt {
  id: string;
  eventId: string;
  type: EventType;
  attemptedAt: string;
  /** The HTTP status; null on a timeout or network error. */
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface DeadLetter {
  id: string;
  eventId: string;
  endpointId: string;
  type: EventType;
  failedAt: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
}

/** A page: its size, and how many items come before it (a bigint as text). */
export interface Window {
  limit: number;
  offset: string;
}

/** An endpoint's recent attempts, newest first, and how many it has. */
export async function listAttempts(
  db: Queryable,
  endpointId: string,
  window: Window,
): Promise<{ items: WebhookAttempt[]; total: number }> {
  const notFound = () => new ApiError('not_found', 'Webhook endpoint not found');
  if (!isUuid(endpointId)) throw notFound();
  const rows = await db.query<{
    total: number;
    id: string | null;
    event_id: string;
    type: EventType;
    attempted_at: Date;
    status: number | null;
    duration_ms: number;
    error: string | null;
  }>(
    `SELECT (SELECT count(*)::int FROM webhook_attempts WHERE endpoint_id = e.id) AS total, p.*
       FROM webhook_endpoints e
       LEFT JOIN LATERAL (
         SELECT a.id, a.event_id, ev.type, a.attempted_at, a.status, a.duration_ms, a.error
           FROM webhook_attempts a JOIN webhook_events ev ON ev.id = a.event_id
          WHERE a.endpoint_id = e.id
          ORDER BY a.attempted_at DESC, a.id DESC
          LIMIT $2 OFFSET $3::bigint
       ) p ON true
      WHERE e.id = $1`,
    [endpointId, window.limit, window.offset],
  );
  if (rows.length === 0) throw notFound();
  return {
    total: rows[0]?.total ?? 0,
    items: rows.flatMap((row) =>
      row.id === null
        ? []
        : [
            {
              id: row.id,
              eventId: row.event_id,
              type: row.type,
              attemptedAt: row.attempted_at.toISOString(),
              status: row.status,
              durationMs: row.duration_ms,
              error: row.error,
            },
          ],
    ),
  };
}

interface DeadLetterRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  type: EventType;
  failed_at: Date;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
}
const DEAD_LETTER = `SELECT dl.id, d.event_id, d.endpoint_id, ev.type, dl.failed_at, d.attempts, d.last_status, d.last_error
  FROM webhook_dead_letters dl
  JOIN webhook_deliveries d ON d.id = dl.delivery_id
  JOIN webhook_events ev ON ev.id = d.event_id`;

/** The team's dead letters not yet replayed, most recent failure first. */
export async function listDeadLetters(
  db: Queryable,
  teamId: string,
  window: Window,
): Promise<{ items: DeadLetter[]; total: number }> {
  if (!isUuid(teamId) || !(await teamExists(db, teamId))) throw new ApiError('not_found', 'Team not found');
  const [count] = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_dead_letters WHERE team_id = $1 AND replayed_at IS NULL',
    [teamId],
  );
  const rows = await db.query<DeadLetterRow>(
    `${DEAD_LETTER} WHERE dl.team_id = $1 AND dl.replayed_at IS NULL
      ORDER BY dl.failed_at DESC, dl.id LIMIT $2 OFFSET $3::bigint`,
    [teamId, window.limit, window.offset],
  );
  return { total: count?.n ?? 0, items: rows.map(toDeadLetter) };
}

/**
 * Puts a dead letter's delivery back in the queue, due now, with a fresh count of attempts;
 * the event (and so its id) is the same, signed with the endpoint's current secret when it
 * is sent. Replaying one already replayed is a conflict.
 */
export async function replayDeadLetter(ctx: WriteContext, id: string): Promise<DeadLetter> {
  const notFound = () => new ApiError('not_found', 'Dead letter not found');
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const [row] = await tx.query<DeadLetterRow & { delivery_id: string; replayed_at: Date | null }>(
      `${DEAD_LETTER.replace('SELECT ', 'SELECT dl.delivery_id, dl.replayed_at, ')} WHERE dl.id = $1 FOR UPDATE OF dl`,
      [id],
    );
    if (!row) throw notFound();
    if (row.replayed_at !== null) throw new ApiError('conflict', 'This dead letter was already replayed');
    await tx.query('UPDATE webhook_dead_letters SET replayed_at = $2 WHERE id = $1', [id, tx.now]);
    await requeue(tx, [row.delivery_id]);
    return toDeadLetter(row);
  });
}

/**
 * Replays every dead letter of one endpoint not yet replayed (after an outage, what an
 * operator wants): each delivery is due again at once, with a fresh count of attempts.
 * Returns how many were queued.
 */
export async function replayEndpointDeadLetters(ctx: WriteContext, endpointId: string): Promise<number> {
  const notFound = () => new ApiError('not_found', 'Webhook endpoint not found');
  if (!isUuid(endpointId)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const exists = await tx.query('SELECT 1 FROM webhook_endpoints WHERE id = $1', [endpointId]);
    if (exists.length === 0) throw notFound();
    const replayed = await tx.query<{ delivery_id: string }>(
      `UPDATE webhook_dead_letters dl SET replayed_at = $2
         FROM webhook_deliveries d
        WHERE d.id = dl.delivery_id AND d.endpoint_id = $1 AND dl.replayed_at IS NULL
       RETURNING dl.delivery_id`,
      [endpointId, tx.now],
    );
    await requeue(
      tx,
      replayed.map((r) => r.delivery_id),
    );
    return replayed.length;
  });
}

/** Puts deliveries back in the queue, due now, with a fresh count of attempts. */
async function requeue(tx: WriteTx, deliveryIds: string[]): Promise<void> {
  if (deliveryIds.length === 0) return;
  await tx.query(
    `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $2, claim_token = NULL,
            updated_at = $2
      WHERE id = ANY ($1::uuid[])`,
    [deliveryIds, tx.now],
  );
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    type: row.type,
    failedAt: row.failed_at.toISOString(),
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
  };
}

import type { Static } from '@sinclair/typebox';
import { apiErrors, fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';
import type { EventType } from '../events/catalogue.ts';
import { teamExists } from '../teams/repo.ts';
import { scopeOf } from '../write/transaction.ts';
import type { AttemptSchema, DeadLetterSchema, EndpointSchema } from './schemas.ts';

export type WebhookEndpoint = Static<typeof EndpointSchema>;

export interface EndpointRow {
  id: string;
  team_id: string;
  url: string;
  event_types: EventType[] | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

export const ENDPOINT_COLUMNS = 'id, team_id, url, event_types, enabled, created_at, updated_at';

export const endpointNotFound = () => fail('endpointNotFound');

export async function listEndpoints(db: Queryable, teamId: string): Promise<WebhookEndpoint[]> {
  if (!isUuid(teamId) || !(await teamExists(db, teamId))) throw apiErrors.teamNotFound();
  const rows = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE team_id = $1 ORDER BY created_at, id`,
    [teamId],
  );
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: Queryable, id: string): Promise<WebhookEndpoint> {
  const [row] = isUuid(id)
    ? await db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id])
    : [];
  if (!row) throw endpointNotFound();
  return toEndpoint(row);
}

export function toEndpoint(row: EndpointRow): WebhookEndpoint {
  return {
    id: row.id,
    teamId: row.team_id,
    url: row.url,
    events: row.event_types,
    enabled: row.enabled,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/** One delivery attempt, as contract.md section 4 gives it. */
export type WebhookAttempt = Static<typeof AttemptSchema>;

export type DeadLetter = Static<typeof DeadLetterSchema>;

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
  const _notFound = () => fail('endpointNotFound');
  if (!isUuid(endpointId)) throw endpointNotFound();
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
  if (rows.length === 0) throw endpointNotFound();
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

export interface DeadLetterRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  type: EventType;
  failed_at: Date;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
}

export const DEAD_LETTER = `SELECT dl.id, d.event_id, d.endpoint_id, ev.type, dl.failed_at, d.attempts, d.last_status, d.last_error
  FROM webhook_dead_letters dl
  JOIN webhook_deliveries d ON d.id = dl.delivery_id
  JOIN webhook_events ev ON ev.id = d.event_id`;

/** The team's dead letters not yet replayed, most recent failure first. */
export async function listDeadLetters(
  db: Queryable,
  teamId: string,
  window: Window,
): Promise<{ items: DeadLetter[]; total: number }> {
  if (!isUuid(teamId) || !(await teamExists(db, teamId))) throw apiErrors.teamNotFound();
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

export function toDeadLetter(row: DeadLetterRow): DeadLetter {
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

/** The team's row locked, then its endpoints counted: registrations of one team run one at a time. */
export async function lockTeamEndpointCount(tx: Queryable, teamId: string): Promise<number> {
  await tx.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
  const [count] = await tx.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM webhook_endpoints WHERE team_id = $1',
    [teamId],
  );
  return count?.n ?? 0;
}

export async function insertEndpoint(
  tx: Queryable,
  endpoint: {
    id: string;
    teamId: string;
    url: string;
    events: EventType[] | null;
    secret: string;
    enabled: boolean;
  },
  now: Date,
): Promise<EndpointRow> {
  const [row] = await tx.query<EndpointRow>(
    `INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, enabled, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${ENDPOINT_COLUMNS}`,
    [endpoint.id, endpoint.teamId, endpoint.url, endpoint.events, endpoint.secret, endpoint.enabled, now],
  );
  return row as EndpointRow;
}

/** undefined leaves a field as it is; `events: null` subscribes to every type. */
export async function updateEndpointRow(
  tx: Queryable,
  id: string,
  changes: {
    url?: string | undefined;
    events?: EventType[] | null | undefined;
    enabled?: boolean | undefined;
  },
  now: Date,
): Promise<EndpointRow | undefined> {
  const [row] = await tx.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET url = coalesce($2, url), event_types = CASE WHEN $3 THEN $4 ELSE event_types END,
            enabled = coalesce($5, enabled), updated_at = $6
      WHERE id = $1 AND ($7::uuid IS NULL OR team_id = $7) RETURNING ${ENDPOINT_COLUMNS}`,
    [
      id,
      changes.url ?? null,
      changes.events !== undefined,
      changes.events ?? null,
      changes.enabled ?? null,
      now,
      scopeOf(tx),
    ],
  );
  return row;
}

/** Its pending deliveries, attempts and dead letters go with it (ON DELETE CASCADE). */
export async function deleteEndpointRow(tx: Queryable, id: string): Promise<boolean> {
  const sql =
    'DELETE FROM webhook_endpoints WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2) RETURNING 1';
  return (await tx.query(sql, [id, scopeOf(tx)])).length > 0;
}

/**
 * A new secret; the current one signs beside it until `previousUntil`, and each earlier one
 * until its own time (those past it are dropped).
 */
export async function rotateSecretRow(
  tx: Queryable,
  id: string,
  secret: string,
  previousUntil: Date,
  now: Date,
): Promise<EndpointRow | undefined> {
  const [row] = await tx.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET previous_secrets =
              coalesce((SELECT jsonb_agg(p) FROM jsonb_array_elements(previous_secrets) p
                         WHERE (p->>'expiresAt')::timestamptz > $4), '[]'::jsonb)
              || jsonb_build_array(jsonb_build_object('secret', secret, 'expiresAt', $3::timestamptz)),
            secret = $2, updated_at = $4
      WHERE id = $1 AND ($5::uuid IS NULL OR team_id = $5) RETURNING ${ENDPOINT_COLUMNS}`,
    [id, secret, previousUntil, now, scopeOf(tx)],
  );
  return row;
}

/** A test event sent from the dashboard, as its endpoint's attempt list shows it. */
export interface TestSend {
  sentAt: Date;
  sentBy: string;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export async function insertTestSend(
  tx: Queryable,
  send: TestSend & { id: string; endpointId: string },
): Promise<void> {
  await tx.query(
    `INSERT INTO webhook_test_sends (id, endpoint_id, sent_at, sent_by, status, duration_ms, error)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [send.id, send.endpointId, send.sentAt, send.sentBy, send.status, send.durationMs, send.error],
  );
}

/** An endpoint's latest test events, newest first. */
export async function recentTestSends(db: Queryable, endpointId: string, limit: number): Promise<TestSend[]> {
  const rows = await db.query<{
    sent_at: Date;
    sent_by: string;
    status: number | null;
    duration_ms: number;
    error: string | null;
  }>(
    `SELECT sent_at, sent_by, status, duration_ms, error FROM webhook_test_sends
      WHERE endpoint_id = $1 ORDER BY sent_at DESC, id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((r) => ({
    sentAt: r.sent_at,
    sentBy: r.sent_by,
    status: r.status,
    durationMs: r.duration_ms,
    error: r.error,
  }));
}

export async function endpointExists(tx: Queryable, id: string): Promise<boolean> {
  const sql = 'SELECT 1 FROM webhook_endpoints WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2)';
  return (await tx.query(sql, [id, scopeOf(tx)])).length > 0;
}

/** A dead letter with its delivery, locked for a replay. */
export async function lockDeadLetter(
  tx: Queryable,
  id: string,
): Promise<(DeadLetterRow & { delivery_id: string; replayed_at: Date | null }) | undefined> {
  const [row] = await tx.query<DeadLetterRow & { delivery_id: string; replayed_at: Date | null }>(
    `${DEAD_LETTER.replace('SELECT ', 'SELECT dl.delivery_id, dl.replayed_at, ')}
      WHERE dl.id = $1 AND ($2::uuid IS NULL OR ev.team_id = $2) FOR UPDATE OF dl`,
    [id, scopeOf(tx)],
  );
  return row;
}

export async function markReplayed(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query('UPDATE webhook_dead_letters SET replayed_at = $2 WHERE id = $1', [id, now]);
}

/** Marks every dead letter of an endpoint not yet replayed as replayed; their deliveries' ids. */
export async function markEndpointReplayed(tx: Queryable, endpointId: string, now: Date): Promise<string[]> {
  const rows = await tx.query<{ delivery_id: string }>(
    `UPDATE webhook_dead_letters dl SET replayed_at = $2
       FROM webhook_deliveries d
      WHERE d.id = dl.delivery_id AND d.endpoint_id = $1 AND dl.replayed_at IS NULL
     RETURNING dl.delivery_id`,
    [endpointId, now],
  );
  return rows.map((row) => row.delivery_id);
}

/** Puts deliveries back in the queue, due now, with a fresh count of attempts. */
export async function requeueDeliveries(
  tx: Queryable,
  deliveryIds: readonly string[],
  now: Date,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  await tx.query(
    `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_attempt_at = $2, claim_token = NULL,
            updated_at = $2
      WHERE id = ANY ($1::uuid[])`,
    [deliveryIds, now],
  );
}

/** Stops every earlier secret signing now (one that leaked): only the current one signs. */
export async function retirePreviousSecretsRow(
  tx: Queryable,
  id: string,
  now: Date,
): Promise<EndpointRow | undefined> {
  const [row] = await tx.query<EndpointRow>(
    `UPDATE webhook_endpoints SET previous_secrets = '[]'::jsonb, updated_at = $2
      WHERE id = $1 AND ($3::uuid IS NULL OR team_id = $3) RETURNING ${ENDPOINT_COLUMNS}`,
    [id, now, scopeOf(tx)],
  );
  return row;
}

/** The secret an endpoint's deliveries are signed with now (a test event from the dashboard). */
export async function currentSecret(db: Queryable, id: string): Promise<string | undefined> {
  const [row] = await db.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [
    id,
  ]);
  return row?.secret;
}

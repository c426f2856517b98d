import type { Static } from '@sinclair/typebox';
import { ApiError, apiErrors } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';
import type { EventType } from '../events/catalogue.ts';
import { teamExists } from '../teams/repo.ts';
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

export const endpointNotFound = () => new ApiError('not_found', 'Webhook endpoint not found');

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
  const _notFound = () => new ApiError('not_found', 'Webhook endpoint not found');
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

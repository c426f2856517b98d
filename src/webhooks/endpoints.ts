import type { Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { EventType } from '../outbox/record.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { teamExists } from '../write/load.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { checkEndpointUrl } from './addresses.ts';
import { generateWebhookSecret } from './signature.ts';

export const MAX_ENDPOINTS_PER_TEAM = 10;
/** How long the secret before a rotation still signs deliveries. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

export interface WebhookEndpoint {
  id: string;
  teamId: string;
  url: string;
  /** null: every event type. */
  events: EventType[] | null;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface EndpointInput {
  url: string;
  events?: EventType[] | null | undefined;
  enabled?: boolean | undefined;
}

interface EndpointRow {
  id: string;
  team_id: string;
  url: string;
  event_types: EventType[] | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}
const COLUMNS = 'id, team_id, url, event_types, enabled, created_at, updated_at';

const notFound = () => new ApiError('not_found', 'Webhook endpoint not found');
const teamNotFound = () => new ApiError('not_found', 'Team not found');

/** Registers an endpoint; its `whsec_` secret is in this answer and in a rotation's only. */
export async function createEndpoint(
  ctx: WriteContext,
  teamId: string,
  input: EndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (!isUuid(teamId)) throw teamNotFound();
  const url = await checkEndpointUrl(input.url, ctx.allowPrivateUrls ?? false);
  return inWrite(ctx, async (tx) => {
    if (!(await teamExists(tx, teamId))) throw teamNotFound();
    // Serialises registrations per team, so two at once cannot pass the limit.
    await tx.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
    const [count] = await tx.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_endpoints WHERE team_id = $1',
      [teamId],
    );
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_TEAM) {
      throw new ApiError(
        'conflict',
        `A team may have at most ${MAX_ENDPOINTS_PER_TEAM} webhook endpoints; remove one first`,
      );
    }
    const secret = generateWebhookSecret();
    const [row] = await tx.query<EndpointRow>(
      `INSERT INTO webhook_endpoints (id, team_id, url, event_types, secret, enabled, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${COLUMNS}`,
      [
        newId(tx.now.getTime()),
        teamId,
        url,
        normalEvents(input.events),
        secret,
        input.enabled ?? true,
        tx.now,
      ],
    );
    return { endpoint: toEndpoint(row as EndpointRow), secret };
  });
}

export async function listEndpoints(db: Queryable, teamId: string): Promise<WebhookEndpoint[]> {
  if (!isUuid(teamId) || !(await teamExists(db, teamId))) throw teamNotFound();
  const rows = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE team_id = $1 ORDER BY created_at, id`,
    [teamId],
  );
  return rows.map(toEndpoint);
}

export async function getEndpoint(db: Queryable, id: string): Promise<WebhookEndpoint> {
  const [row] = isUuid(id)
    ? await db.query<EndpointRow>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1`, [id])
    : [];
  if (!row) throw notFound();
  return toEndpoint(row);
}

export async function updateEndpoint(
  ctx: WriteContext,
  id: string,
  changes: Partial<EndpointInput>,
): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw notFound();
  const url =
    changes.url === undefined
      ? undefined
      : await checkEndpointUrl(changes.url, ctx.allowPrivateUrls ?? false);
  return inWrite(ctx, async (tx) => {
    const [row] = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET url = coalesce($2, url), event_types = CASE WHEN $3 THEN $4 ELSE event_types END,
              enabled = coalesce($5, enabled), updated_at = $6
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        id,
        url ?? null,
        changes.events !== undefined,
        normalEvents(changes.events),
        changes.enabled ?? null,
        tx.now,
      ],
    );
    if (!row) throw notFound();
    return toEndpoint(row);
  });
}

/** Removes an endpoint; its pending deliveries, attempts and dead letters go with it. */
export async function deleteEndpoint(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  await inWrite(ctx, async (tx) => {
    const rows = await tx.query('DELETE FROM webhook_endpoints WHERE id = $1 RETURNING 1', [id]);
    if (rows.length === 0) throw notFound();
  });
}

/** A new secret; the old one keeps signing for 24 hours, so receivers can switch without loss. */
export async function rotateEndpointSecret(
  ctx: WriteContext,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const secret = generateWebhookSecret();
    const [row] = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
        WHERE id = $1 RETURNING ${COLUMNS}`,
      [id, secret, new Date(tx.now.getTime() + PREVIOUS_SECRET_MS), tx.now],
    );
    if (!row) throw notFound();
    return { endpoint: toEndpoint(row), secret };
  });
}

function normalEvents(events: EventType[] | null | undefined): EventType[] | null {
  return events ? [...new Set(events)].sort() : null;
}

function toEndpoint(row: EndpointRow): WebhookEndpoint {
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

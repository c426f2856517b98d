import { ApiError, apiErrors } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import type { EventType } from '../events/catalogue.ts';
import { teamExists } from '../teams/repo.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import { checkEndpointUrl } from './addresses.ts';
import {
  DEAD_LETTER,
  type DeadLetter,
  type DeadLetterRow,
  ENDPOINT_COLUMNS,
  type EndpointRow,
  endpointNotFound,
  toDeadLetter,
  toEndpoint,
  type WebhookEndpoint,
} from './repo.ts';
import { generateWebhookSecret } from './secrets.ts';

export const MAX_ENDPOINTS_PER_TEAM = 10;

/** How long the secret before a rotation still signs deliveries. */
export const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;

export interface EndpointInput {
  url: string;
  events?: EventType[] | null | undefined;
  enabled?: boolean | undefined;
}

/** Registers an endpoint; its `whsec_` secret is in this answer and in a rotation's only. */
export async function createEndpoint(
  ctx: WriteContext,
  teamId: string,
  input: EndpointInput,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (!isUuid(teamId)) throw apiErrors.teamNotFound();
  const url = await checkEndpointUrl(input.url, ctx.allowPrivateUrls ?? false);
  return inWrite(ctx, async (tx) => {
    if (!(await teamExists(tx, teamId))) throw apiErrors.teamNotFound();
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
       VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING ${ENDPOINT_COLUMNS}`,
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

export async function updateEndpoint(
  ctx: WriteContext,
  id: string,
  changes: Partial<EndpointInput>,
): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw endpointNotFound();
  const url =
    changes.url === undefined
      ? undefined
      : await checkEndpointUrl(changes.url, ctx.allowPrivateUrls ?? false);
  return inWrite(ctx, async (tx) => {
    const [row] = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET url = coalesce($2, url), event_types = CASE WHEN $3 THEN $4 ELSE event_types END,
              enabled = coalesce($5, enabled), updated_at = $6
        WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [
        id,
        url ?? null,
        changes.events !== undefined,
        normalEvents(changes.events),
        changes.enabled ?? null,
        tx.now,
      ],
    );
    if (!row) throw endpointNotFound();
    return toEndpoint(row);
  });
}

/** Removes an endpoint; its pending deliveries, attempts and dead letters go with it. */
export async function deleteEndpoint(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw endpointNotFound();
  await inWrite(ctx, async (tx) => {
    const rows = await tx.query('DELETE FROM webhook_endpoints WHERE id = $1 RETURNING 1', [id]);
    if (rows.length === 0) throw endpointNotFound();
  });
}

/** A new secret; the old one keeps signing for 24 hours, so receivers can switch without loss. */
export async function rotateEndpointSecret(
  ctx: WriteContext,
  id: string,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  if (!isUuid(id)) throw endpointNotFound();
  return inWrite(ctx, async (tx) => {
    const secret = generateWebhookSecret();
    const [row] = await tx.query<EndpointRow>(
      `UPDATE webhook_endpoints
          SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
        WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, secret, new Date(tx.now.getTime() + PREVIOUS_SECRET_MS), tx.now],
    );
    if (!row) throw endpointNotFound();
    return { endpoint: toEndpoint(row), secret };
  });
}

function normalEvents(events: EventType[] | null | undefined): EventType[] | null {
  return events ? [...new Set(events)].sort() : null;
}

const deadLetterNotFound = () => new ApiError('not_found', 'Dead letter not found');

/**
 * Puts a dead letter's delivery back in the queue, due now, with a fresh count of attempts;
 * the event (and so its id) is the same, signed with the endpoint's current secret when it
 * is sent. Replaying one already replayed is a conflict.
 */
export async function replayDeadLetter(ctx: WriteContext, id: string): Promise<DeadLetter> {
  if (!isUuid(id)) throw deadLetterNotFound();
  return inWrite(ctx, async (tx) => {
    const [row] = await tx.query<DeadLetterRow & { delivery_id: string; replayed_at: Date | null }>(
      `${DEAD_LETTER.replace('SELECT ', 'SELECT dl.delivery_id, dl.replayed_at, ')} WHERE dl.id = $1 FOR UPDATE OF dl`,
      [id],
    );
    if (!row) throw deadLetterNotFound();
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
  if (!isUuid(endpointId)) throw endpointNotFound();
  return inWrite(ctx, async (tx) => {
    const exists = await tx.query('SELECT 1 FROM webhook_endpoints WHERE id = $1', [endpointId]);
    if (exists.length === 0) throw endpointNotFound();
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

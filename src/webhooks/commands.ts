import { ApiError, apiErrors, fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import type { EventType } from '../events/catalogue.ts';
import { teamExists } from '../teams/repo.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { checkEndpointUrl } from './addresses.ts';
import {
  type DeadLetter,
  deleteEndpointRow,
  endpointExists,
  endpointNotFound,
  insertEndpoint,
  insertTestSend,
  lockDeadLetter,
  lockTeamEndpointCount,
  markEndpointReplayed,
  markReplayed,
  requeueDeliveries,
  retirePreviousSecretsRow,
  rotateSecretRow,
  type TestSend,
  toDeadLetter,
  toEndpoint,
  updateEndpointRow,
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
    if ((await lockTeamEndpointCount(tx, teamId)) >= MAX_ENDPOINTS_PER_TEAM) {
      throw new ApiError(
        'conflict',
        `A team may have at most ${MAX_ENDPOINTS_PER_TEAM} webhook endpoints; remove one first`,
      );
    }
    const secret = generateWebhookSecret();
    const row = await insertEndpoint(
      tx,
      {
        id: newId(tx.now.getTime()),
        teamId,
        url,
        events: normalEvents(input.events),
        secret,
        enabled: input.enabled ?? true,
      },
      tx.now,
    );
    return { endpoint: toEndpoint(row), secret };
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
    const row = await updateEndpointRow(
      tx,
      id,
      {
        url,
        events: changes.events === undefined ? undefined : normalEvents(changes.events),
        enabled: changes.enabled,
      },
      tx.now,
    );
    if (!row) throw endpointNotFound();
    return toEndpoint(row);
  });
}

/** Removes an endpoint; its pending deliveries, attempts and dead letters go with it. */
export async function deleteEndpoint(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw endpointNotFound();
  await inWrite(ctx, async (tx) => {
    if (!(await deleteEndpointRow(tx, id))) throw endpointNotFound();
  });
}

/** Keeps what a test event sent to an endpoint came to, for its attempt list (the endpoint in the caller's scope). */
export async function recordTestSend(ctx: WriteContext, endpointId: string, send: TestSend): Promise<void> {
  if (!isUuid(endpointId)) throw endpointNotFound();
  await inWrite(ctx, async (tx) => {
    if (!(await endpointExists(tx, endpointId))) throw endpointNotFound();
    await insertTestSend(tx, { ...send, id: newId(tx.now.getTime()), endpointId });
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
    const row = await rotateSecretRow(
      tx,
      id,
      secret,
      new Date(tx.now.getTime() + PREVIOUS_SECRET_MS),
      tx.now,
    );
    if (!row) throw endpointNotFound();
    return { endpoint: toEndpoint(row), secret };
  });
}

/** Earlier secrets stop signing now (after a leak); the current one is untouched. */
export async function retirePreviousSecrets(ctx: WriteContext, id: string): Promise<WebhookEndpoint> {
  if (!isUuid(id)) throw endpointNotFound();
  return inWrite(ctx, async (tx) => {
    const row = await retirePreviousSecretsRow(tx, id, tx.now);
    if (!row) throw endpointNotFound();
    return toEndpoint(row);
  });
}

function normalEvents(events: EventType[] | null | undefined): EventType[] | null {
  return events ? [...new Set(events)].sort() : null;
}

const deadLetterNotFound = () => fail('deadLetterNotFound');

/**
 * Puts a dead letter's delivery back in the queue, due now, with a fresh count of attempts;
 * the event (and so its id) is the same, signed with the endpoint's current secret when it
 * is sent. Replaying one already replayed is a conflict.
 */
export async function replayDeadLetter(ctx: WriteContext, id: string): Promise<DeadLetter> {
  if (!isUuid(id)) throw deadLetterNotFound();
  return inWrite(ctx, async (tx) => {
    const row = await lockDeadLetter(tx, id);
    if (!row) throw deadLetterNotFound();
    if (row.replayed_at !== null) throw new ApiError('conflict', 'This dead letter was already replayed');
    await markReplayed(tx, id, tx.now);
    await requeueDeliveries(tx, [row.delivery_id], tx.now);
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
    if (!(await endpointExists(tx, endpointId))) throw endpointNotFound();
    const replayed = await markEndpointReplayed(tx, endpointId, tx.now);
    await requeueDeliveries(tx, replayed, tx.now);
    return replayed.length;
  });
}

import { API_VERSION } from '../http/envelope.ts';
import { newId } from '../shared/ids.ts';
import type { WriteTx } from '../write/transaction.ts';

/** The 21 event types of contract.md section 4, by category. */
export const EVENT_TYPES = [
  'deal_room.created',
  'deal_room.updated',
  'deal_room.archived',
  'deal_room.restored',
  'deal_room.deleted',
  'document.created',
  'document.updated',
  'document.published',
  'document.unpublished',
  'document.deleted',
  'link.created',
  'link.updated',
  'link.deactivated',
  'link.expired',
  'link.deleted',
  'viewer.created',
  'viewer.returned',
  'view.started',
  'view.completed',
  'download.created',
  'download.denied',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export interface RecordedEvent {
  id: string;
  type: EventType;
}

/** What a receiver gets: the envelope of every event, `data` the resource after the change. */
export interface EventPayload {
  id: string;
  type: EventType;
  createdAt: string;
  apiVersion: string;
  teamId: string;
  data: unknown;
}

/**
 * Records an event in the outbox, in the transaction of the change that caused it: the
 * event, and one pending delivery for every enabled endpoint of the team subscribed to its
 * type. The worker delivers them; the request path never calls a receiver.
 */
export async function recordEvent(
  tx: WriteTx,
  teamId: string,
  type: EventType,
  data: unknown,
): Promise<void> {
  const id = newId(tx.now.getTime());
  const payload: EventPayload = {
    id,
    type,
    createdAt: tx.now.toISOString(),
    apiVersion: API_VERSION,
    teamId,
    data,
  };
  await tx.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, team_id, type, payload, created_at)
       VALUES ($1, $2, $3, $4, $5)
       RETURNING id
     )
     INSERT INTO webhook_deliveries
            (id, event_id, endpoint_id, state, next_attempt_at, created_at, updated_at)
     SELECT gen_random_uuid(), event.id, e.id, 'pending', $5, $5, $5
       FROM event, webhook_endpoints e
      WHERE e.team_id = $2 AND e.enabled AND (e.event_types IS NULL OR $3 = ANY (e.event_types))`,
    [id, teamId, type, JSON.stringify(payload), tx.now],
  );
  tx.events.push({ id, type });
}

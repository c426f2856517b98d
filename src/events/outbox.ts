import { API_VERSION } from '../core/envelope.ts';
import { newId } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';
import type { DataOf, EventOwner, EventPayload, EventType, NewEvent, RecordedEvent } from './catalogue.ts';

/** The transaction an event is recorded in: its time, and the events it recorded so far. */
export interface EventTx extends Queryable {
  readonly now: Date;
  readonly events: RecordedEvent[];
}

export type { NewEvent } from './catalogue.ts';

/**
 * Records an event in the outbox, in the transaction of the change that caused it: the
 * event, and one pending delivery for every enabled endpoint of the team subscribed to its
 * type. The worker delivers them; the request path never calls a receiver.
 */
export async function recordEvent<T extends EventType>(
  tx: EventTx,
  owner: EventOwner,
  type: T,
  data: DataOf<T>,
): Promise<void> {
  await recordEvents(tx, [{ ...owner, type, data } as NewEvent]);
}

/** Several events in one statement (a batch of writes); their ids, in the given order. */
export async function recordEvents(tx: EventTx, events: readonly NewEvent[]): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  const createdAt = tx.now.toISOString();
  const recorded = events.map(({ type }) => ({ id: newId(tx.now.getTime()), type }));
  // The envelope keeps each event's type with its data (TypeScript cannot follow that through a spread).
  const payloads = events.map(
    ({ teamId, type, data }, i) =>
      ({
        id: recorded[i]?.id as string,
        type,
        createdAt,
        apiVersion: API_VERSION,
        teamId,
        data,
      }) as EventPayload,
  );
  await tx.query(
    `WITH event AS (
       INSERT INTO webhook_events (id, team_id, deal_room_id, type, payload, created_at)
       SELECT id, team_id, deal_room_id, type, payload, $5
         FROM unnest($1::uuid[], $2::uuid[], $6::uuid[], $3::text[], $4::json[])
           AS e(id, team_id, deal_room_id, type, payload)
       RETURNING id, team_id, type
     )
     INSERT INTO webhook_deliveries
            (id, event_id, endpoint_id, state, next_attempt_at, created_at, updated_at)
     SELECT gen_random_uuid(), event.id, e.id, 'pending', $5, $5, $5
       FROM event JOIN webhook_endpoints e ON e.team_id = event.team_id
      WHERE e.enabled AND (e.event_types IS NULL OR event.type = ANY (e.event_types))`,
    [
      recorded.map((e) => e.id),
      events.map((e) => e.teamId),
      events.map((e) => e.type),
      payloads.map((p) => JSON.stringify(p)),
      tx.now,
      events.map((e) => e.dealRoomId),
    ],
  );
  tx.events.push(...recorded);
  return recorded;
}

/**
 * Marks the events recorded so far for a room being deleted: their payloads hold its
 * viewers' emails, so the worker removes them once nothing is pending for them
 * (delivery/queue.ts). Events recorded after this, the room's deal_room.deleted among them,
 * are not marked.
 */
export async function forgetRoomEvents(tx: EventTx, dealRoomId: string): Promise<void> {
  await tx.query('UPDATE webhook_events SET room_deleted = true WHERE deal_room_id = $1', [dealRoomId]);
}

import type { Static, TSchema } from '@sinclair/typebox';

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

/**
 * Each event type's `data`. The schemas are declared by the features that raise the events
 * and assembled above them (http/event-catalogue.ts, which checks that all 21 are there);
 * that module fills this interface in (declaration merging). So the outbox takes only what
 * a type carries, and this module imports no feature.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the features (declaration merging)
export interface EventData {}

/** The `data` of events of type T (never for a type no feature has declared). */
export type DataOf<T extends EventType> = T extends keyof EventData ? EventData[T] : never;

/** The EventData entries of a feature's event map (`{ 'link.created': LinkSchema, … }`). */
export type EventDataOf<Map extends Record<string, TSchema>> = { [T in keyof Map]: Static<Map[T]> };

/** An event to record: what it is about and the resource as it stands after the change. */
/** Whose an event is: every event belongs to one team's deal room. */
export interface EventOwner {
  teamId: string;
  dealRoomId: string;
}

export type NewEvent = { [T in EventType]: EventOwner & { type: T; data: DataOf<T> } }[EventType];

/** What a receiver gets: the envelope of every event, `data` the resource after the change. */
export type EventPayload = {
  [T in EventType]: {
    id: string;
    type: T;
    createdAt: string;
    apiVersion: string;
    teamId: string;
    data: DataOf<T>;
  };
}[EventType];

/** A feature's event map where every type carries the same resource: `{ [type]: schema }`. */
export function eventsCarrying<const Types extends readonly EventType[], S extends TSchema>(
  types: Types,
  schema: S,
): { [T in Types[number]]: S } {
  return Object.fromEntries(types.map((type) => [type, schema])) as { [T in Types[number]]: S };
}

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

import { type TSchema, Type } from '@sinclair/typebox';
import { API_VERSION } from '../core/envelope.ts';
import { StringEnum, Timestamp, Uuid } from '../core/fields.ts';
import { DealRoomEvents } from '../deal-rooms/schemas.ts';
import { DocumentEvents } from '../documents/schemas.ts';
import { EVENT_TYPES, type EventDataOf, type EventType } from '../events/catalogue.ts';
import { LinkEvents } from '../links/schemas.ts';
import { TrackingEvents } from '../tracking/schemas.ts';
import { ViewerEvents } from '../viewers/schemas.ts';

/**
 * Every event type with the schema of its `data`, each declared by the feature that raises
 * it: the one catalogue the OpenAPI document publishes (its `webhooks` section) and the
 * client package's payload types follow. The `satisfies` keeps it whole: a type of
 * contract.md section 4 without its schema, or one more, does not compile.
 */
export const EVENT_PAYLOADS = {
  ...DealRoomEvents,
  ...DocumentEvents,
  ...LinkEvents,
  ...ViewerEvents,
  ...TrackingEvents,
} as const satisfies Record<EventType, TSchema>;

// The outbox below the features takes each type's data as this catalogue declares it.
declare module '../events/catalogue.ts' {
  interface EventData extends EventDataOf<typeof EVENT_PAYLOADS> {}
}

type Exact<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const catalogueIsWhole: Exact<keyof typeof EVENT_PAYLOADS, EventType> = true;
void catalogueIsWhole;

/** The body a receiver gets for one event type: the envelope of every event around its `data`. */
export function eventEnvelope<T extends EventType>(type: T) {
  return Type.Object(
    {
      id: Uuid('The event id; also the webhook-id header, the same on every attempt and replay'),
      type: StringEnum([type] as const),
      createdAt: Timestamp('When the change happened'),
      apiVersion: Type.String({ examples: [API_VERSION] }),
      teamId: Uuid(),
      data: EVENT_PAYLOADS[type],
    },
    { additionalProperties: false },
  );
}

/** The `webhooks` section of an OpenAPI 3.1 document: one POST per event type, as a receiver gets it. */
export function webhooksSection() {
  return Object.fromEntries(
    EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `on_${type.replace('.', '_')}`,
          summary: `${type}: sent to every enabled endpoint subscribed to it`,
          description:
            'Signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). Answer 2xx within 10 seconds; anything else is retried or dead-lettered.',
          requestBody: { required: true, content: { 'application/json': { schema: eventEnvelope(type) } } },
          responses: { '2XX': { description: 'Received; the delivery succeeded' } },
        },
      },
    ]),
  );
}

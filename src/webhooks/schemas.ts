import { Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../core/fields.ts';
import { Nullable, strict } from '../core/schemas.ts';
import { EVENT_TYPES } from '../events/catalogue.ts';

const EventTypeSchema = StringEnum(EVENT_TYPES);
const endpointFields = {
  id: Uuid(),
  teamId: Uuid(),
  url: Type.String(),
  events: Nullable(Type.Array(EventTypeSchema), 'The event types it receives; null: all'),
  enabled: Type.Boolean(),
  createdAt: Timestamp('When it was registered'),
  updatedAt: Timestamp('When it last changed'),
};
export const EndpointSchema = Type.Object(endpointFields, { ...strict, title: 'WebhookEndpoint' });
export const EndpointWithSecretSchema = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'whsec_…: shown on creation and rotation only' }) },
  { ...strict, title: 'NewWebhookEndpoint' },
);
const endpointInput = {
  events: Type.Optional(
    Nullable(Type.Array(EventTypeSchema, { minItems: 1, maxItems: 21, uniqueItems: true })),
  ),
  enabled: Type.Optional(Type.Boolean()),
};
export const EndpointBody = Type.Object(
  { url: Type.String({ minLength: 1, maxLength: 2048 }), ...endpointInput },
  strict,
);
export const EndpointPatch = Type.Object(
  { url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })), ...endpointInput },
  { ...strict, minProperties: 1 },
);
export const AttemptSchema = Type.Object(
  {
    id: Uuid(),
    eventId: Uuid(),
    type: EventTypeSchema,
    attemptedAt: Timestamp('When it was sent'),
    status: Nullable(Type.Integer(), 'HTTP status; null on a timeout or network error'),
    durationMs: Type.Integer({ description: 'Milliseconds until the answer; 0 when none came' }),
    error: Nullable(Type.String()),
  },
  { ...strict, title: 'DeliveryAttempt' },
);
export const DeadLetterSchema = Type.Object(
  {
    id: Uuid(),
    eventId: Uuid(),
    endpointId: Uuid(),
    type: EventTypeSchema,
    failedAt: Timestamp('When its last attempt failed'),
    attempts: Type.Integer(),
    lastStatus: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
  },
  { ...strict, title: 'DeadLetter' },
);
export const ReplayedSchema = Type.Object(
  { replayed: Type.Integer({ minimum: 0, description: 'Dead letters queued again' }) },
  strict,
);

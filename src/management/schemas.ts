import { type TSchema, Type } from '@sinclair/typebox';
import { DealRoomDetailSchema } from '../deal-rooms/schemas.ts';
import { DocumentSchema, SOURCE_TYPES } from '../documents/schemas.ts';
import { PaginationSchema } from '../http/envelope.ts';
import { NullableTimestamp, StringEnum, Timestamp, Uuid } from '../http/fields.ts';
import { LinkSchema } from '../links/schemas.ts';
import { EVENT_TYPES } from '../outbox/record.ts';

/**
 * The management API's bodies and resources. Resources are the read API's schemas plus the
 * settings only the dashboard sees; request bodies refuse unknown fields.
 */

const strict = { additionalProperties: false } as const;
const Name = (max = 200) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });
const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});
const When = (description: string) => Type.String({ format: 'date-time', description });

export const IdParams = Type.Object({ id: Type.String({ description: 'A UUID' }) });
export const TeamParams = Type.Object({ teamId: Type.String({ description: 'Team id (a UUID)' }) });

export const Data = <T extends TSchema>(data: T) => Type.Object({ data }, strict);
export const DataList = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item) }, strict);
export const DataPage = <T extends TSchema>(item: T) =>
  Type.Object(
    { data: Type.Array(item), meta: Type.Object({ pagination: PaginationSchema }, strict) },
    strict,
  );

// Teams and keys
export const TeamSchema = Type.Object(
  { id: Uuid(), name: Type.String(), createdAt: Timestamp('When it was created') },
  strict,
);
export const TeamBody = Type.Object({ name: Name() }, strict);

const apiKeyFields = {
  id: Uuid(),
  teamId: Uuid(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  createdAt: Timestamp('When it was created'),
  lastUsedAt: NullableTimestamp('Last authenticated request (updated at most once a minute)'),
  revokedAt: NullableTimestamp('When it was revoked; null while active'),
};
export const ApiKeySchema = Type.Object(apiKeyFields, strict);
export const CreatedApiKeySchema = Type.Object(
  {
    ...apiKeyFields,
    key: Type.Optional(
      Type.String({
        description: 'The plain key: in this answer only (not in a repeat under the same Idempotency-Key)',
      }),
    ),
  },
  strict,
);
export const ApiKeyBody = Type.Object({ name: Type.Optional(Name()) }, strict);

// Deal rooms
export const ManagedDealRoomSchema = Type.Object(
  { ...DealRoomDetailSchema.properties, teamId: Uuid() },
  strict,
);
export const DealRoomBody = Type.Object(
  { name: Name(), description: Type.Optional(Type.String({ maxLength: 5000 })) },
  strict,
);
export const DealRoomPatch = Type.Object(
  { name: Type.Optional(Name()), description: Type.Optional(Type.String({ maxLength: 5000 })) },
  { ...strict, minProperties: 1 },
);

// Documents
export const ManagedDocumentSchema = Type.Object(
  {
    ...DocumentSchema.properties,
    dealRoomId: Uuid(),
    downloadOverride: Nullable(
      Type.Boolean(),
      'null: follow the link; true/false: always/never downloadable',
    ),
  },
  strict,
);
const documentFields = {
  displayName: Type.Optional(Nullable(Name(300))),
  sourceType: Type.Optional(StringEnum(SOURCE_TYPES)),
  pageCount: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  position: Type.Optional(Type.Integer({ minimum: -1_000_000_000, maximum: 1_000_000_000 })),
  downloadOverride: Type.Optional(Nullable(Type.Boolean())),
};
export const DocumentBody = Type.Object(
  {
    name: Name(300),
    ...documentFields,
    status: Type.Optional(StringEnum(['draft', 'published'] as const, { description: 'Default draft' })),
  },
  strict,
);
export const DocumentPatch = Type.Object(
  { name: Type.Optional(Name(300)), ...documentFields },
  { ...strict, minProperties: 1 },
);

// Links
export const ManagedLinkSchema = Type.Object(
  {
    ...LinkSchema.properties,
    dealRoomId: Uuid(),
    enabled: Type.Boolean(),
    allowDownload: Type.Boolean(),
    documentIds: Nullable(Type.Array(Uuid()), 'The documents the link shows; null: all of the room'),
  },
  strict,
);
const linkFields = {
  shortId: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9_-]{4,64}$', description: '4 to 64 of A-Z a-z 0-9 _ -' }),
  ),
  enabled: Type.Optional(Type.Boolean()),
  requiresEmail: Type.Optional(Type.Boolean()),
  password: Type.Optional(
    Nullable(Type.String({ minLength: 1, maxLength: 200 }), 'Stored hashed; never returned'),
  ),
  expiresAt: Type.Optional(Nullable(When('When the link stops working; null: never'))),
  allowDownload: Type.Optional(Type.Boolean()),
  documentIds: Type.Optional(
    Nullable(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 1000, uniqueItems: true })),
  ),
};
export const LinkBody = Type.Object({ name: Name(), ...linkFields }, strict);
export const LinkPatch = Type.Object(
  { name: Type.Optional(Name()), ...linkFields },
  { ...strict, minProperties: 1 },
);

// Tracking
export const ViewerBody = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 320 })),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    visitorId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { ...strict, description: '{ email, name? } or { visitorId, name? }' },
);
export const VisitBody = Type.Object({ viewer: ViewerBody, at: Type.Optional(When('Default: now')) }, strict);
export const ViewBody = Type.Object(
  {
    documentId: Type.String({ format: 'uuid' }),
    viewer: ViewerBody,
    startedAt: Type.Optional(When('Default: now')),
  },
  strict,
);
export const CompleteBody = Type.Object(
  {
    durationSeconds: Type.Integer({
      minimum: 0,
      maximum: 604_800,
      description: 'Whole seconds, at most a week',
    }),
  },
  strict,
);
export const DownloadBody = Type.Object(
  {
    documentId: Type.String({ format: 'uuid' }),
    viewer: ViewerBody,
    at: Type.Optional(When('Default: now')),
  },
  strict,
);
export const VisitSchema = Type.Object(
  {
    id: Uuid(),
    dealRoomId: Uuid(),
    linkId: Uuid(),
    viewerId: Uuid(),
    at: Timestamp('When the link was opened'),
  },
  strict,
);
export const ViewSchema = Type.Object(
  {
    id: Uuid(),
    dealRoomId: Uuid(),
    documentId: Uuid(),
    linkId: Uuid(),
    viewerId: Uuid(),
    startedAt: Timestamp('When the view started'),
    durationSeconds: Type.Integer({ description: '0 until the view is completed' }),
  },
  strict,
);
export const DownloadSchema = Type.Object(
  {
    id: Uuid(),
    dealRoomId: Uuid(),
    documentId: Uuid(),
    linkId: Uuid(),
    viewerId: Uuid(),
    at: Timestamp('When it was downloaded'),
  },
  strict,
);

// Webhooks
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
export const EndpointSchema = Type.Object(endpointFields, strict);
export const EndpointWithSecretSchema = Type.Object(
  { ...endpointFields, secret: Type.String({ description: 'whsec_…: shown on creation and rotation only' }) },
  strict,
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
    durationMs: Type.Integer(),
    error: Nullable(Type.String()),
  },
  strict,
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
  strict,
);
export const ReplayedSchema = Type.Object(
  { replayed: Type.Integer({ minimum: 0, description: 'Dead letters queued again' }) },
  strict,
);

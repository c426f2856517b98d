import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../core/fields.ts';
import { PaginationQuery } from '../core/query.ts';
import { Managed, Name, strict } from '../core/schemas.ts';
import { eventsCarrying } from '../events/catalogue.ts';

const counts = {
  documentCount: Type.Integer({ description: 'Number of published documents' }),
  linkCount: Type.Integer({ description: 'Number of share links, in any state' }),
  totalViews: Type.Integer({ description: 'All-time document views' }),
};
const head = {
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  status: StringEnum(['active', 'archived'] as const),
};
const times = {
  createdAt: Timestamp('When the room was created'),
  updatedAt: Timestamp('When the room, or a document or link in it, last changed'),
};

/** A deal room as the list shows it. */
export const DealRoomSchema = Type.Object(
  { ...head, ...counts, ...times },
  { additionalProperties: false, title: 'DealRoom' },
);

/** A deal room as the single-room response (and webhook payloads) show it. */
export const DealRoomDetailSchema = Type.Object(
  {
    ...head,
    ...counts,
    uniqueViewers: Type.Integer({ description: 'All-time distinct viewers' }),
    avgViewDurationSeconds: Type.Integer({
      description: 'All-time mean view duration in seconds, rounded half up',
    }),
    ...times,
  },
  {
    additionalProperties: false,
    examples: [
      {
        id: '6f1c2b7e-3a4d-4e5f-8a9b-0c1d2e3f4a5b',
        name: 'Project Falcon – Series B',
        description: 'Due diligence for the Series B round',
        status: 'active',
        documentCount: 12,
        linkCount: 4,
        totalViews: 1843,
        uniqueViewers: 57,
        avgViewDurationSeconds: 94,
        createdAt: '2026-03-02T09:15:00.000Z',
        updatedAt: '2026-05-18T16:40:12.345Z',
      },
    ],
    title: 'DealRoomDetail',
  },
);

export type DealRoom = Static<typeof DealRoomSchema>;
export type DealRoomDetail = Static<typeof DealRoomDetailSchema>;

export const DealRoomListQuery = Type.Object({
  ...PaginationQuery.properties,
  status: Type.Optional(
    StringEnum(['active', 'archived'] as const, { description: 'Only rooms with this status.' }),
  ),
});

export const ManagedDealRoomSchema = Managed('ManagedDealRoom', DealRoomDetailSchema, { teamId: Uuid() });
export const DealRoomBody = Type.Object(
  { name: Name(), description: Type.Optional(Type.String({ maxLength: 5000 })) },
  strict,
);
export const DealRoomPatch = Type.Object(
  { name: Type.Optional(Name()), description: Type.Optional(Type.String({ maxLength: 5000 })) },
  { ...strict, minProperties: 1 },
);

/** The events about a deal room: `data` is the room as the single-room response shows it. */
export const DealRoomEvents = eventsCarrying(
  ['deal_room.created', 'deal_room.updated', 'deal_room.archived', 'deal_room.restored', 'deal_room.deleted'],
  DealRoomDetailSchema,
);

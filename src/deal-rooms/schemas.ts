import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../http/fields.ts';

const counts = {
  documentCount: Type.Integer({ description: 'Number of published documents' }),
  linkCount: Type.Integer({ description: 'Number of share links, in any state' }),
  totalViews: Type.Integer({ description: 'All-time document views' }),
};
const head = {
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('archived')]),
};
const times = {
  createdAt: Timestamp('When the room was created'),
  updatedAt: Timestamp('When the room, or a document or link in it, last changed'),
};

/** A deal room as the list shows it. */
export const DealRoomSchema = Type.Object({ ...head, ...counts, ...times }, { additionalProperties: false });

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
  { additionalProperties: false },
);

export type DealRoom = Static<typeof DealRoomSchema>;
export type DealRoomDetail = Static<typeof DealRoomDetailSchema>;

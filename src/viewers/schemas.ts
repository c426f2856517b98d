import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../core/fields.ts';

export const ViewerSchema = Type.Object(
  {
    id: Uuid(),
    email: Type.String({ description: 'Trimmed, lower-cased email; "" for an anonymous viewer' }),
    name: Type.String({ description: 'Latest non-empty name given with a view; "" when none' }),
    firstViewedAt: Timestamp('Start of their first view'),
    lastViewedAt: Timestamp('Start of their latest view'),
    totalViews: Type.Integer(),
    totalDurationSeconds: Type.Integer(),
    documentsViewed: Type.Integer({ description: 'Distinct documents viewed' }),
    linkName: Type.String({ description: 'Name of the link used for their latest view' }),
  },
  {
    additionalProperties: false,
    examples: [
      {
        id: '3c2b1a09-8f7e-4d6c-9b5a-4f3e2d1c0b9a',
        email: 'ava.chen@bluepeak.vc',
        name: 'Ava Chen',
        firstViewedAt: '2026-04-02T14:03:11.000Z',
        lastViewedAt: '2026-05-19T09:47:30.000Z',
        totalViews: 23,
        totalDurationSeconds: 2710,
        documentsViewed: 9,
        linkName: 'Lead investors',
      },
    ],
    title: 'Viewer',
  },
);

export type Viewer = Static<typeof ViewerSchema>;

/** A viewer in an event: the Viewer fields and its room. */
export const ViewerEventSchema = Type.Object(
  { ...ViewerSchema.properties, dealRoomId: Uuid() },
  { additionalProperties: false, title: 'ViewerEvent' },
);

/** The events about a viewer (raised by a view start). */
export const ViewerEvents = {
  'viewer.created': ViewerEventSchema,
  'viewer.returned': ViewerEventSchema,
} as const;

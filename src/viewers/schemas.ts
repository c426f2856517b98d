import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../http/fields.ts';

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
  { additionalProperties: false },
);

export type Viewer = Static<typeof ViewerSchema>;

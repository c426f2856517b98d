import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from '../http/fields.ts';
import { PERIODS } from '../http/query.ts';

export const AnalyticsSchema = Type.Object(
  {
    dealRoomId: Uuid(),
    period: Type.Union(
      PERIODS.map((p) => Type.Literal(p)),
      { description: 'The period used' },
    ),
    totalViews: Type.Integer(),
    uniqueViewers: Type.Integer({ description: 'Distinct viewers with a view in the period' }),
    avgViewDurationSeconds: Type.Integer({
      description: 'Mean duration of those views, rounded half up',
    }),
    totalDownloads: Type.Integer(),
    topDocuments: Type.Array(
      Type.Object(
        {
          documentId: Uuid(),
          name: Type.String(),
          views: Type.Integer(),
          avgDurationSeconds: Type.Integer(),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10, description: 'At most 10, by views descending, then name, then id' },
    ),
    topLinks: Type.Array(
      Type.Object(
        { linkId: Uuid(), name: Type.String(), clicks: Type.Integer() },
        { additionalProperties: false },
      ),
      {
        maxItems: 10,
        description: 'At most 10, by clicks in the period descending, then name, then id',
      },
    ),
    viewsOverTime: Type.Array(
      Type.Object(
        {
          date: Type.String({ format: 'date', description: 'YYYY-MM-DD (UTC)' }),
          views: Type.Integer(),
        },
        { additionalProperties: false },
      ),
      { description: 'One item per day of the period, oldest first' },
    ),
  },
  { additionalProperties: false },
);

export type Analytics = Static<typeof AnalyticsSchema>;

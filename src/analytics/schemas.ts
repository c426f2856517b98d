import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Uuid } from '../core/fields.ts';

import { PERIODS } from '../core/period.ts';

export { PERIODS, type Period } from '../core/period.ts';

export const AnalyticsQuery = Type.Object({
  period: Type.Optional(
    StringEnum(PERIODS, {
      description: 'Days covered, ending today (UTC): 7, 30, 90, or all time. Default 30d.',
    }),
  ),
});

export const AnalyticsSchema = Type.Object(
  {
    dealRoomId: Uuid(),
    period: StringEnum(PERIODS, { description: 'The period used' }),
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
  {
    additionalProperties: false,
    examples: [
      {
        dealRoomId: '6f1c2b7e-3a4d-4e5f-8a9b-0c1d2e3f4a5b',
        period: '7d',
        totalViews: 41,
        uniqueViewers: 12,
        avgViewDurationSeconds: 88,
        totalDownloads: 3,
        topDocuments: [
          {
            documentId: '0b8e4f2a-1c3d-4e5f-9a7b-6c5d4e3f2a1b',
            name: 'Financial Model.xlsx',
            views: 17,
            avgDurationSeconds: 131,
          },
        ],
        topLinks: [{ linkId: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d', name: 'Lead investors', clicks: 15 }],
        viewsOverTime: [
          { date: '2026-05-14', views: 4 },
          { date: '2026-05-15', views: 9 },
          { date: '2026-05-16', views: 0 },
          { date: '2026-05-17', views: 2 },
          { date: '2026-05-18', views: 11 },
          { date: '2026-05-19', views: 8 },
          { date: '2026-05-20', views: 7 },
        ],
      },
    ],
    title: 'Analytics',
  },
);

export type Analytics = Static<typeof AnalyticsSchema>;

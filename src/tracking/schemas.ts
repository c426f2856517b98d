import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../core/fields.ts';
import { strict, When } from '../core/schemas.ts';

export const ViewerBody = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 320 })),
    name: Type.Optional(
      Type.String({ maxLength: 200, pattern: '^[^\\u200b\\u2060\\ufeff\\u202a-\\u202e\\u2066-\\u2069]*$' }),
    ),
    visitorId: Type.Optional(Type.String({ maxLength: 200 })),
  },
  {
    ...strict,
    description: '{ email, name? } or { visitorId, name? }',
    // So a generated client cannot build the viewer the server refuses: one of the two is needed.
    anyOf: [{ required: ['email'] }, { required: ['visitorId'] }],
  },
);
export const VisitBody = Type.Object({ viewer: ViewerBody, at: Type.Optional(When('Default: now')) }, strict);
/** What a view or a download is of: a document, through the link, by a viewer. */
const documentByViewer = { documentId: Type.String({ format: 'uuid' }), viewer: ViewerBody };
export const ViewBody = Type.Object(
  { ...documentByViewer, startedAt: Type.Optional(When('Default: now')) },
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
  { ...documentByViewer, at: Type.Optional(When('Default: now')) },
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
  { ...strict, title: 'Visit' },
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
  { ...strict, title: 'View' },
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
  { ...strict, title: 'Download' },
);

/** The events of live tracking: a view, a download. */
export const TrackingEvents = {
  'view.started': ViewSchema,
  'view.completed': ViewSchema,
  'download.created': DownloadSchema,
  'download.denied': DownloadSchema,
} as const;

/**
 * A reading report as the link page's viewer sends it: its view's token, active seconds per
 * page (1-based) since the last report, and whether the person left.
 */
export const ReadingReportBody = Type.Object({
  token: Type.String({ maxLength: 200 }),
  id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  pages: Type.Record(Type.String({ pattern: '^[1-9][0-9]{0,5}$' }), Type.Number({ minimum: 0 }), {
    additionalProperties: false,
    maxProperties: 10_000,
  }),
  final: Type.Optional(Type.Boolean()),
});

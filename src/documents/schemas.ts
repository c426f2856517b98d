import { type Static, Type } from '@sinclair/typebox';
import { StringEnum, Timestamp, Uuid } from '../core/fields.ts';
import { Managed, Name, Nullable, strict } from '../core/schemas.ts';
import { eventsCarrying } from '../events/catalogue.ts';

export const SOURCE_TYPES = [
  'upload',
  'url',
  'google_drive',
  'dropbox',
  'onedrive',
  'box',
  'notion',
] as const;
export const DOCUMENT_STATUSES = ['draft', 'published', 'archived'] as const;

export const DocumentSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    displayName: Type.Union([Type.String(), Type.Null()], { description: 'null when none is set' }),
    sourceType: StringEnum(SOURCE_TYPES),
    pageCount: Type.Integer(),
    status: Type.Union(
      DOCUMENT_STATUSES.map((s) => Type.Literal(s)),
      {
        description: 'Always `published` in the document list',
      },
    ),
    position: Type.Integer({ description: 'Position in the sidebar' }),
    createdAt: Timestamp('When the document was added'),
    updatedAt: Timestamp('When the document last changed'),
  },
  {
    additionalProperties: false,
    examples: [
      {
        id: '0b8e4f2a-1c3d-4e5f-9a7b-6c5d4e3f2a1b',
        name: 'Financial Model.xlsx',
        displayName: 'Financial model (FY26)',
        sourceType: 'google_drive',
        pageCount: 14,
        status: 'published',
        position: 2,
        createdAt: '2026-03-03T10:00:00.000Z',
        updatedAt: '2026-04-21T08:12:45.000Z',
      },
    ],
    title: 'Document',
  },
);

export type Document = Static<typeof DocumentSchema>;

export const ManagedDocumentSchema = Managed('ManagedDocument', DocumentSchema, {
  dealRoomId: Uuid(),
  downloadOverride: Nullable(Type.Boolean(), 'null: follow the link; true/false: always/never downloadable'),
});
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

/** The events about a document: `data` has the Document fields, whatever its status. */
export const DocumentEvents = eventsCarrying(
  ['document.created', 'document.updated', 'document.published', 'document.unpublished', 'document.deleted'],
  DocumentSchema,
);

export const PageFiguresSchema = Type.Object(
  {
    documentId: Type.String({ format: 'uuid' }),
    period: Type.String({ enum: ['7d', '30d', '90d', 'all'] }),
    pageCount: Type.Integer(),
    views: Type.Integer({ description: 'Views of the document started in the period' }),
    completion: Type.Number({
      minimum: 0,
      maximum: 1,
      description: 'Mean over those views of (pages with active time / pageCount)',
    }),
    pages: Type.Array(
      Type.Object(
        {
          page: Type.Integer({ minimum: 1 }),
          views: Type.Integer({ description: 'Views with active time on this page' }),
          activeSeconds: Type.Integer(),
          avgActiveSeconds: Type.Integer({
            description: 'activeSeconds / views, rounded half up; 0 when none',
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, title: 'PageFigures' },
);
export type PageFigures = Static<typeof PageFiguresSchema>;

import { type Static, Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../http/fields.ts';

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
    sourceType: Type.Union(SOURCE_TYPES.map((t) => Type.Literal(t))),
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
  { additionalProperties: false },
);

export type Document = Static<typeof DocumentSchema>;

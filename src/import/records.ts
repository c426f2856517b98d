import { DOCUMENT_STATUSES, SOURCE_TYPES } from '../documents/schemas.ts';
import type { ViewerIdentity } from '../viewers/identity.ts';
import { ImportError } from './errors.ts';
import { Fields } from './fields.ts';

export { ImportError } from './errors.ts';

export const RECORD_TYPES = ['team', 'dealRoom', 'document', 'link', 'visit', 'view', 'download'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export interface TeamRecord {
  id: string;
  name: string;
}
export interface DealRoomRecord {
  id: string;
  teamId: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  createdAt: Date;
  updatedAt: Date;
}
export interface DocumentRecord {
  id: string;
  dealRoomId: string;
  name: string;
  displayName: string | null;
  sourceType: string;
  pageCount: number;
  status: string;
  position: number;
  downloadOverride: boolean | null;
  createdAt: Date;
  updatedAt: Date;
}
export interface LinkRecord {
  id: string;
  dealRoomId: string;
  name: string;
  shortId: string;
  enabled: boolean;
  requiresEmail: boolean;
  password: string | null;
  expiresAt: Date | null;
  allowDownload: boolean;
  documentIds: string[] | null;
  createdAt: Date;
}
export interface VisitRecord {
  linkId: string;
  at: Date;
  viewer: ViewerIdentity;
}
export interface ViewRecord {
  linkId: string;
  documentId: string;
  viewer: ViewerIdentity;
  startedAt: Date;
  durationSeconds: number;
}
export interface DownloadRecord {
  linkId: string;
  documentId: string;
  viewer: ViewerIdentity;
  at: Date;
}

export type ImportRecord =
  | { type: 'team'; where: string; record: TeamRecord }
  | { type: 'dealRoom'; where: string; record: DealRoomRecord }
  | { type: 'document'; where: string; record: DocumentRecord }
  | { type: 'link'; where: string; record: LinkRecord }
  | { type: 'visit'; where: string; record: VisitRecord }
  | { type: 'view'; where: string; record: ViewRecord }
  | { type: 'download'; where: string; record: DownloadRecord };

const SHORT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Validates one raw record of a known type and returns it in normal form. */
export function parseRecord(type: RecordType, raw: unknown, where: string, now: Date): ImportRecord {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new ImportError(where, undefined, 'must be a JSON object');
  }
  const f = new Fields(raw as Record<string, unknown>, where, now);
  switch (type) {
    case 'team':
      return { type, where, record: { id: f.uuid('id'), name: f.text('name') } };
    case 'dealRoom': {
      const { createdAt, updatedAt } = f.times();
      return {
        type,
        where,
        record: {
          id: f.uuid('id'),
          teamId: f.uuid('teamId'),
          name: f.text('name'),
          description: f.text('description', { required: false }),
          status: f.oneOf('status', ['active', 'archived'] as const),
          createdAt,
          updatedAt,
        },
      };
    }
    case 'document': {
      const { createdAt, updatedAt } = f.times();
      return {
        type,
        where,
        record: {
          id: f.uuid('id'),
          dealRoomId: f.uuid('dealRoomId'),
          name: f.text('name'),
          displayName: f.nullableText('displayName'),
          sourceType: f.oneOf('sourceType', SOURCE_TYPES),
          pageCount: f.integer('pageCount', 0),
          status: f.oneOf('status', DOCUMENT_STATUSES),
          position: f.signedInteger('position'),
          downloadOverride: f.nullableBoolean('downloadOverride'),
          createdAt,
          updatedAt,
        },
      };
    }
    case 'link': {
      const shortId = f.text('shortId');
      if (!SHORT_ID.test(shortId))
        f.fail('shortId', 'must be 1 to 64 characters of A-Z, a-z, 0-9, "_" or "-"');
      const password = f.nullableText('password');
      if (password === '') f.fail('password', 'must not be empty (omit it for no password)');
      return {
        type,
        where,
        record: {
          id: f.uuid('id'),
          dealRoomId: f.uuid('dealRoomId'),
          name: f.text('name'),
          shortId,
          enabled: f.boolean('enabled', true),
          requiresEmail: f.boolean('requiresEmail', false),
          password,
          expiresAt: f.nullableTimestamp('expiresAt'),
          allowDownload: f.boolean('allowDownload', true),
          documentIds: f.uuidList('documentIds'),
          createdAt: f.timestamp('createdAt'),
        },
      };
    }
    case 'visit':
      return {
        type,
        where,
        record: { linkId: f.uuid('linkId'), at: f.eventTime('at'), viewer: f.viewer('viewer') },
      };
    case 'view':
      return {
        type,
        where,
        record: {
          linkId: f.uuid('linkId'),
          documentId: f.uuid('documentId'),
          viewer: f.viewer('viewer'),
          startedAt: f.eventTime('startedAt'),
          durationSeconds: f.integer('durationSeconds', 0),
        },
      };
    case 'download':
      return {
        type,
        where,
        record: {
          linkId: f.uuid('linkId'),
          documentId: f.uuid('documentId'),
          viewer: f.viewer('viewer'),
          at: f.eventTime('at'),
        },
      };
  }
}

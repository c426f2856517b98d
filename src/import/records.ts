import { DOCUMENT_STATUSES, SOURCE_TYPES } from '../documents/schemas.ts';
import { isUuid } from '../shared/ids.ts';
import { parseTimestamp } from '../shared/time.ts';

/** A bad record: where it stands in the input, which field, and what is wrong with it. */
export class ImportError extends Error {
  constructor(
    readonly where: string,
    readonly field: string | undefined,
    readonly problem: string,
  ) {
    super(`${where}${field ? `, field "${field}"` : ''}: ${problem}`);
  }
}

export const RECORD_TYPES = ['team', 'dealRoom', 'document', 'link', 'visit', 'view', 'download'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export type ViewerIdentity =
  | { kind: 'email'; email: string; name: string }
  | { kind: 'visitor'; visitorId: string; name: string };

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

/** Events may be stamped at most this far ahead of the clock. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;
const SHORT_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_TEXT = 10_000;

/** Reads one record's fields, each failure naming the record and the field. */
class Fields {
  constructor(
    private readonly raw: Record<string, unknown>,
    private readonly where: string,
    private readonly now: Date,
  ) {}

  fail(field: string, problem: string): never {
    throw new ImportError(this.where, field, problem);
  }

  has(field: string): boolean {
    return this.raw[field] !== undefined;
  }

  uuid(field: string): string {
    const value = this.raw[field];
    if (!isUuid(value)) this.fail(field, 'must be a UUID');
    return value.toLowerCase();
  }

  text(field: string, { required = true, fallback = '' } = {}): string {
    const value = this.raw[field];
    if (value === undefined && !required) return fallback;
    if (typeof value !== 'string') this.fail(field, 'must be a string');
    if (required && value.trim() === '') this.fail(field, 'must not be empty');
    if (value.length > MAX_TEXT) this.fail(field, `must be at most ${MAX_TEXT} characters`);
    return value;
  }

  nullableText(field: string): string | null {
    const value = this.raw[field];
    return value === undefined || value === null ? null : this.text(field, { required: false });
  }

  oneOf<T extends string>(field: string, allowed: readonly T[]): T {
    const value = this.raw[field];
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.fail(field, `must be one of: ${allowed.join(', ')}`);
    }
    return value as T;
  }

  integer(field: string, min: number): number {
    const value = this.raw[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 2_147_483_647) {
      this.fail(field, `must be an integer >= ${min}`);
    }
    return value;
  }

  signedInteger(field: string): number {
    const value = this.raw[field];
    if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > 2_147_483_647) {
      this.fail(field, 'must be an integer');
    }
    return value;
  }

  boolean(field: string, fallback?: boolean): boolean {
    const value = this.raw[field];
    if (value === undefined && fallback !== undefined) return fallback;
    if (typeof value !== 'boolean') this.fail(field, 'must be true or false');
    return value;
  }

  nullableBoolean(field: string): boolean | null {
    const value = this.raw[field];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'boolean') this.fail(field, 'must be true, false or null');
    return value;
  }

  timestamp(field: string): Date {
    const at = parseTimestamp(this.raw[field]);
    if (!at) this.fail(field, 'must be an ISO 8601 timestamp with a time zone, e.g. 2026-04-01T09:30:00Z');
    return at;
  }

  /** When a visit, view or download happened: no more than five minutes ahead of now. */
  eventTime(field: string): Date {
    const at = this.timestamp(field);
    if (at.getTime() > this.now.getTime() + FUTURE_TOLERANCE_MS) {
      this.fail(field, 'is more than five minutes in the future');
    }
    return at;
  }

  nullableTimestamp(field: string): Date | null {
    const value = this.raw[field];
    if (value === undefined || value === null) return null;
    const at = parseTimestamp(value);
    if (!at) this.fail(field, 'must be an ISO 8601 timestamp with a time zone, or null');
    return at;
  }

  uuidList(field: string): string[] | null {
    const value = this.raw[field];
    if (value === undefined || value === null) return null;
    if (!Array.isArray(value) || !value.every(isUuid)) this.fail(field, 'must be an array of UUIDs');
    return [...new Set(value.map((id: string) => id.toLowerCase()))];
  }

  viewer(field: string): ViewerIdentity {
    const value = this.raw[field];
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.fail(field, 'must be { "email", "name" } or { "visitorId" }');
    }
    const viewer = value as Record<string, unknown>;
    const name = viewer.name;
    if (name !== undefined && name !== null && typeof name !== 'string')
      this.fail(`${field}.name`, 'must be a string');
    const cleanName = typeof name === 'string' ? name.trim() : '';
    const email = viewer.email;
    if (email !== undefined && email !== null && typeof email !== 'string')
      this.fail(`${field}.email`, 'must be a string');
    const cleanEmail = typeof email === 'string' ? email.trim().toLowerCase() : '';
    if (cleanEmail !== '') {
      if (cleanEmail.length > 320 || !/^[^\s@]+@[^\s@]+$/.test(cleanEmail)) {
        this.fail(`${field}.email`, 'must be an email address');
      }
      return { kind: 'email', email: cleanEmail, name: cleanName };
    }
    const visitorId = viewer.visitorId;
    if (typeof visitorId !== 'string' || visitorId.trim() === '' || visitorId.length > 200) {
      this.fail(field, 'needs a non-empty "email" or a "visitorId" (a string of at most 200 characters)');
    }
    return { kind: 'visitor', visitorId: visitorId.trim(), name: cleanName };
  }
}

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
      const createdAt = f.timestamp('createdAt');
      const updatedAt = f.has('updatedAt') ? f.timestamp('updatedAt') : createdAt;
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
      const createdAt = f.timestamp('createdAt');
      const updatedAt = f.has('updatedAt') ? f.timestamp('updatedAt') : createdAt;
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

import { isUuid } from '../core/ids.ts';
import { isStorableText } from '../core/text.ts';
import { EARLIEST_INSTANT_MS, parseTimestamp } from '../core/time.ts';
import { type ViewerIdentity, viewerIdentityOf } from '../viewers/identity.ts';
import { ImportError } from './errors.ts';

/** Events may be stamped at most this far ahead of the clock. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

const MAX_TEXT = 10_000;

/** Reads one record's fields, each failure naming the record and the field. */
const EARLIEST_MS = EARLIEST_INSTANT_MS;

export class Fields {
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

  /** `createdAt`, and `updatedAt` (by default the same). */
  times(): { createdAt: Date; updatedAt: Date } {
    const createdAt = this.timestamp('createdAt');
    return { createdAt, updatedAt: this.has('updatedAt') ? this.timestamp('updatedAt') : createdAt };
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
    if (!isStorableText(value)) this.fail(field, 'must not contain U+0000 or an unpaired surrogate');
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
    return this.notTooEarly(field, at);
  }

  /**
   * Nothing the service tracks predates 2000; an earlier year is a mistake, and would make
   * `period=all` span centuries of empty days.
   */
  private notTooEarly(field: string, at: Date): Date {
    if (at.getTime() < EARLIEST_MS) this.fail(field, 'must not be before 2000-01-01T00:00:00Z');
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
    return this.notTooEarly(field, at);
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
    const email = viewer.email;
    if (email !== undefined && email !== null && typeof email !== 'string')
      this.fail(`${field}.email`, 'must be a string');
    const visitorId = viewer.visitorId;
    for (const part of ['name', 'email', 'visitorId'] as const) {
      const text = viewer[part];
      if (typeof text === 'string' && !isStorableText(text)) {
        this.fail(`${field}.${part}`, 'must not contain U+0000 or an unpaired surrogate');
      }
    }
    const identity = viewerIdentityOf({
      email: email as string | null | undefined,
      name: typeof name === 'string' ? name : undefined,
      visitorId: typeof visitorId === 'string' ? visitorId : undefined,
    });
    if (identity === 'email') this.fail(`${field}.email`, 'must be an email address');
    if (identity === 'missing') {
      this.fail(field, 'needs a non-empty "email" or a "visitorId" (a string of at most 200 characters)');
    }
    return identity;
  }
}

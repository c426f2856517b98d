import { ApiError } from './errors.ts';

const DAY_MS = 86_400_000;

/** Midnight UTC of the day `at` falls on. */
export function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

export function addDays(day: Date, days: number): Date {
  return new Date(day.getTime() + days * DAY_MS);
}

/** YYYY-MM-DD of a UTC day. */
export function isoDay(day: Date): string {
  return day.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to`, both at UTC midnight. */
export function daysBetween(from: Date, to: Date): number {
  return Math.round((to.getTime() - from.getTime()) / DAY_MS);
}

const ISO_TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/** Nothing the service tracks predates 2000 (an earlier year is a mistake). */
export const EARLIEST_INSTANT_MS = Date.UTC(2000, 0, 1);

/**
 * Parses an ISO 8601 timestamp that names its offset; undefined when it is not one, or names
 * no real instant: a day the month does not have (02-30), an hour past 23, a minute or a
 * second past 59 (a leap second, :60, has no instant of its own), an offset past 23:59.
 */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = ISO_TIMESTAMP.exec(value);
  if (!parts) return undefined;
  const [year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = parts
    .slice(1)
    .map((part) => (part === undefined || part === '+' || part === '-' ? 0 : Number(part)));
  const calendar = new Date(Date.UTC(year as number, (month as number) - 1, day as number));
  if (
    calendar.getUTCMonth() !== (month as number) - 1 ||
    calendar.getUTCDate() !== day ||
    (hour as number) > 23 ||
    (minute as number) > 59 ||
    (second as number) > 59 ||
    (offsetHours as number) > 23 ||
    (offsetMinutes as number) > 59
  ) {
    return undefined;
  }
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** Mean of `total` over `count`, rounded half up; 0 when count is 0. */
export function roundedMean(total: number, count: number): number {
  if (count === 0) return 0;
  return Math.floor((2 * total + count) / (2 * count));
}

/**
 * A timestamp given to a write (`at`, `startedAt`, `expiresAt`) as the instant it names:
 * null and undefined pass through (clear, or leave as it is); anything that is not a real
 * instant from 2000 on is a 400 naming the field.
 */
export function instantOf(value: string | null | undefined, field: string): Date | null | undefined {
  if (value === null || value === undefined) return value;
  const at = parseTimestamp(value);
  if (!at || at.getTime() < EARLIEST_INSTANT_MS) {
    throw new ApiError(
      'validation_error',
      `${field} must be a real instant from 2000-01-01 on, as an ISO 8601 timestamp with a time zone`,
    );
  }
  return at;
}

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
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):(\d{2}))$/i;

/** Nothing the service tracks predates 2000 (an earlier year is a mistake). */
export const EARLIEST_INSTANT_MS = Date.UTC(2000, 0, 1);

/**
 * Parses an ISO 8601 timestamp that names its offset; undefined when it is not one, or names
 * no real instant: a day the month does not have (02-30), an hour past 23, a minute or a
 * second past 59 (a leap second, :60, has no instant of its own), an offset past 23:59.
 * Digits past the millisecond are dropped, as Date drops them. One pass: an import parses a
 * few million of these.
 */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const parts = ISO_TIMESTAMP.exec(value);
  if (!parts) return undefined;
  const year = Number(parts[1]);
  const month = Number(parts[2]) - 1;
  const day = Number(parts[3]);
  const hour = Number(parts[4]);
  const minute = Number(parts[5]);
  const second = parts[6] === undefined ? 0 : Number(parts[6]);
  const fraction = parts[7];
  const millisecond = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const offsetHours = parts[9] === undefined ? 0 : Number(parts[9]);
  const offsetMinutes = parts[10] === undefined ? 0 : Number(parts[10]);
  if (month < 0 || month > 11 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  // Date.UTC reads years 0-99 as 1900-1999; 400 Gregorian years later is the same calendar,
  // exactly 146,097 days on.
  const local = Date.UTC(year + 400, month, day, hour, minute, second, millisecond) - 146_097 * DAY_MS;
  const offsetMs = (offsetHours * 60 + offsetMinutes) * 60_000;
  return new Date(parts[8] === '-' ? local + offsetMs : local - offsetMs);
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 1 && leap ? 29 : (MONTH_DAYS[month] as number);
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

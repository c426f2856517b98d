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

const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;

/** Parses an ISO 8601 timestamp that names its offset; undefined when it is not one. */
export function parseTimestamp(value: unknown): Date | undefined {
  if (typeof value !== 'string' || !ISO_TIMESTAMP.test(value)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}

/** Mean of `total` over `count`, rounded half up; 0 when count is 0. */
export function roundedMean(total: number, count: number): number {
  if (count === 0) return 0;
  return Math.floor((2 * total + count) / (2 * count));
}

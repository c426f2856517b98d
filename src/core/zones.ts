import { DateTime } from 'luxon';

/**
 * Times as the people of a timezone (an IANA name) read and type them. The zone arithmetic is
 * Luxon's (on Intl's zone data), so a daylight-saving day has its 23 or 25 hours.
 */

/** A moment in the zone, with the zone named: `2026-11-26 13:34 EST`. */
export function inZone(at: Date, zone: string): string {
  const local = DateTime.fromJSDate(at, { zone });
  if (!local.isValid) return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `${local.toFormat('yyyy-MM-dd HH:mm')} ${local.offsetNameShort ?? zone}`;
}

/** The hour and minute in the zone: `13:34`. */
export const clockInZone = (at: Date, zone: string): string =>
  DateTime.fromJSDate(at, { zone }).toFormat('HH:mm');

/** A moment as a `datetime-local` input shows it in the zone: `2026-11-26T13:34`. */
export function localInput(at: Date, zone: string): string {
  return DateTime.fromJSDate(at, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");
}

/**
 * The moment a date and time typed in the zone names (`2026-12-01T18:00`, seconds optional),
 * or undefined when it is not one. A time skipped by a daylight-saving change is read as the
 * same time after the change (02:30 on a spring-forward night is 03:30).
 */
export function fromLocal(text: string, zone: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(text)) return undefined;
  const local = DateTime.fromISO(text, { zone });
  return local.isValid ? local.toJSDate() : undefined;
}

/** A timezone's name as the service keeps it (`utc` is `UTC`), or undefined when Intl does not know it. */
export function timezoneOf(name: string): string | undefined {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The last `count` days of the zone, today included, oldest first: each one's date and the moment it starts. */
export function zoneDays(zone: string, now: Date, count: number): { date: string; start: Date }[] {
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  return Array.from({ length: count }, (_, i) => {
    const day = today.minus({ days: count - 1 - i }).startOf('day');
    return { date: day.toISODate() ?? '', start: day.toJSDate() };
  });
}

/** Days of the zone from the one holding `from` to the one holding `now`, both included (at least 1). */
export function zoneDaysSince(zone: string, from: Date, now: Date): number {
  const first = DateTime.fromJSDate(from, { zone }).startOf('day');
  const today = DateTime.fromJSDate(now, { zone }).startOf('day');
  return Math.max(1, Math.round(today.diff(first, 'days').days) + 1);
}

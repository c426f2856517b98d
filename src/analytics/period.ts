import { firstDayOf, PERIOD_DAYS, type Period } from '../core/period.ts';
import { addDays, daysBetween, isoDay, startOfUtcDay } from '../core/time.ts';

export interface PeriodDays {
  /** 00:00Z of the first day; events at or after it count. */
  firstDay: Date;
  /** 00:00Z of today (UTC), the last day. */
  today: Date;
  /** Number of days, today included. */
  days: number;
}

/**
 * The whole UTC days a period covers, ending today. `all` starts on the earlier of the
 * room's creation day and its first view's day (never after today).
 */
export function periodDays(
  period: Period,
  now: Date,
  room: { createdAt: Date; firstViewAt: Date | null },
): PeriodDays {
  const today = startOfUtcDay(now);
  if (period !== 'all') {
    return { firstDay: firstDayOf(period, now), today, days: PERIOD_DAYS[period] };
  }
  const starts = [room.createdAt, room.firstViewAt, today].filter((d): d is Date => d !== null);
  const firstDay = startOfUtcDay(new Date(Math.min(...starts.map((d) => d.getTime()))));
  return { firstDay, today, days: daysBetween(firstDay, today) + 1 };
}

/** One item per day of the period, oldest first, with 0 for days without views. */
export function fillDailySeries(
  bounds: PeriodDays,
  counts: ReadonlyMap<string, number>,
): { date: string; views: number }[] {
  const series: { date: string; views: number }[] = [];
  for (let i = 0; i < bounds.days; i++) {
    const date = isoDay(addDays(bounds.firstDay, i));
    series.push({ date, views: counts.get(date) ?? 0 });
  }
  return series;
}

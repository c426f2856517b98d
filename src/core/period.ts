import { addDays, startOfUtcDay } from './time.ts';

/** The periods figures are read over (contract.md section 2): days ending today, or all time. */
export const PERIODS = ['7d', '30d', '90d', 'all'] as const;
export type Period = (typeof PERIODS)[number];

/** The days a bounded period covers, today included. */
export const PERIOD_DAYS: Readonly<Record<Exclude<Period, 'all'>, number>> = {
  '7d': 7,
  '30d': 30,
  '90d': 90,
};

export const isPeriod = (value: unknown): value is Period => PERIODS.includes(value as Period);

/** 00:00Z of a bounded period's first day (UTC). */
export function firstDayOf(period: Exclude<Period, 'all'>, now: Date): Date {
  return addDays(startOfUtcDay(now), -(PERIOD_DAYS[period] - 1));
}

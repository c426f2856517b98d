import { describe, expect, it } from 'vitest';
import { fillDailySeries, periodDays } from './period.ts';

const room = { createdAt: new Date('2026-03-01T10:00:00Z'), firstViewAt: null };

describe('periodDays', () => {
  it.each([
    ['7d', '2026-05-14', 7],
    ['30d', '2026-04-21', 30],
    ['90d', '2026-02-20', 90],
  ] as const)('%s ends today and starts on %s', (period, first, days) => {
    for (const now of ['2026-05-20T00:00:00.000Z', '2026-05-20T23:59:59.999Z']) {
      const bounds = periodDays(period, new Date(now), room);
      expect(bounds.firstDay.toISOString()).toBe(`${first}T00:00:00.000Z`);
      expect(bounds.today.toISOString()).toBe('2026-05-20T00:00:00.000Z');
      expect(bounds.days).toBe(days);
    }
  });

  it('starts "all" on the earlier of creation and first view, never after today', () => {
    const now = new Date('2026-05-20T08:00:00Z');
    expect(periodDays('all', now, room).firstDay.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    const early = { ...room, firstViewAt: new Date('2026-02-27T23:59:59Z') };
    expect(periodDays('all', now, early)).toMatchObject({ days: 83 });
    const future = { createdAt: new Date('2026-05-21T00:01:00Z'), firstViewAt: null };
    expect(periodDays('all', now, future)).toMatchObject({ days: 1 });
  });

  it('crosses a leap day', () => {
    const bounds = periodDays('7d', new Date('2028-03-02T12:00:00Z'), room);
    expect(bounds.firstDay.toISOString()).toBe('2028-02-25T00:00:00.000Z');
  });
});

describe('fillDailySeries', () => {
  it('has one zero-filled item per day, oldest first', () => {
    const bounds = periodDays('7d', new Date('2026-01-03T05:00:00Z'), room);
    const series = fillDailySeries(
      bounds,
      new Map([
        ['2025-12-29', 4],
        ['2026-01-03', 1],
      ]),
    );
    expect(series.map((d) => d.date)).toEqual([
      '2025-12-28',
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
      '2026-01-02',
      '2026-01-03',
    ]);
    expect(series.map((d) => d.views)).toEqual([0, 4, 0, 0, 0, 0, 1]);
  });
});

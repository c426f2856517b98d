import { describe, expect, it } from 'vitest';
import { zoneDays, zoneDaysSince } from './zones.ts';

describe('days of a timezone', () => {
  it('starts each day at its own midnight, through daylight-saving days of 23 and 25 hours', () => {
    const spring = zoneDays('America/New_York', new Date('2026-03-09T12:00:00Z'), 3);
    expect(spring.map((d) => [d.date, d.start.toISOString()])).toEqual([
      ['2026-03-07', '2026-03-07T05:00:00.000Z'],
      ['2026-03-08', '2026-03-08T05:00:00.000Z'],
      ['2026-03-09', '2026-03-09T04:00:00.000Z'],
    ]);
    const autumn = zoneDays('America/New_York', new Date('2026-11-02T03:30:00Z'), 3);
    expect(autumn.map((d) => [d.date, d.start.toISOString()])).toEqual([
      ['2026-10-30', '2026-10-30T04:00:00.000Z'],
      ['2026-10-31', '2026-10-31T04:00:00.000Z'],
      ['2026-11-01', '2026-11-01T04:00:00.000Z'],
    ]);
  });

  it('starts days on a quarter hour in zones whose offset is not whole hours', () => {
    const [kathmandu] = zoneDays('Asia/Kathmandu', new Date('2026-06-01T12:00:00Z'), 1);
    expect(kathmandu?.start.toISOString()).toBe('2026-05-31T18:15:00.000Z');
    const [kolkata] = zoneDays('Asia/Kolkata', new Date('2026-06-01T12:00:00Z'), 1);
    expect(kolkata?.start.toISOString()).toBe('2026-05-31T18:30:00.000Z');
  });

  it('counts the days from one moment to another in the zone, both included', () => {
    expect(
      zoneDaysSince('America/New_York', new Date('2026-03-07T12:00:00Z'), new Date('2026-03-09T12:00:00Z')),
    ).toBe(3);
    expect(zoneDaysSince('UTC', new Date('2026-03-09T01:00:00Z'), new Date('2026-03-09T23:00:00Z'))).toBe(1);
    expect(
      zoneDaysSince('America/New_York', new Date('2026-03-09T03:00:00Z'), new Date('2026-03-09T05:00:00Z')),
    ).toBe(2);
  });
});

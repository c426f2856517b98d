import { describe, expect, it } from 'vitest';
import { instantOf, parseTimestamp, roundedMean } from './time.ts';

describe('roundedMean', () => {
  it.each([
    [0, 0, 0],
    [3, 2, 2],
    [1, 2, 1],
    [5, 2, 3],
    [4, 3, 1],
    [5, 3, 2],
    [7, 2, 4],
    [10, 4, 3],
    [9, 4, 2],
    [0, 5, 0],
  ])('%d / %d rounds half up to %d', (total, count, expected) => {
    expect(roundedMean(total, count)).toBe(expected);
  });

  it('is exact for large totals', () => {
    expect(roundedMean(3_000_000_001, 2)).toBe(1_500_000_001);
  });
});

describe('parseTimestamp', () => {
  it('accepts ISO 8601 with a zone and refuses the rest', () => {
    expect(parseTimestamp('2026-04-01T09:30:00Z')?.toISOString()).toBe('2026-04-01T09:30:00.000Z');
    expect(parseTimestamp('2026-04-01T11:30:00.5+02:00')?.toISOString()).toBe('2026-04-01T09:30:00.500Z');
    for (const bad of ['2026-04-01', '2026-04-01T09:30:00', 'yesterday', '2026-13-01T00:00:00Z', 1, null]) {
      expect(parseTimestamp(bad)).toBeUndefined();
    }
  });

  it('names the instant Date names, for every form it accepts', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % below;
    };
    for (let i = 0; i < 5000; i++) {
      const year = String([1, 50, 99, 100, 1999, 2000, 2024, 2026, 9999][next(9)]).padStart(4, '0');
      const fraction = ['', '.5', '.25', '.123', '.123456', '.999999999'][next(6)] ?? '';
      const zone = next(3) === 0 ? 'Z' : `${next(2) ? '+' : '-'}${two(next(24))}:${two(next(60))}`;
      const seconds = next(5) === 0 ? '' : `:${two(next(60))}${fraction}`;
      const text = `${year}-${two(1 + next(12))}-${two(1 + next(28))}T${two(next(24))}:${two(next(60))}${seconds}${zone}`;
      expect(parseTimestamp(text)?.toISOString(), text).toBe(new Date(text).toISOString());
    }
  });
});

describe('real instants', () => {
  it('refuses a timestamp that names no real instant', () => {
    for (const bad of [
      '2026-06-30T23:59:60Z', // a leap second
      '2026-02-30T10:00:00Z',
      '2026-02-29T10:00:00Z', // 2026 is no leap year
      '2026-04-31T10:00:00Z',
      '2026-04-01T24:00:00Z',
      '2026-04-01T10:60:00Z',
      '2026-04-01T10:00:00+24:00',
    ]) {
      expect(parseTimestamp(bad), bad).toBeUndefined();
    }
    expect(parseTimestamp('2028-02-29T23:59:59.999-23:59')?.toISOString()).toBe('2028-03-01T23:58:59.999Z');
  });

  it('takes a write timestamp from 2000 on, and names the field otherwise', () => {
    expect(instantOf('2000-01-01T00:00:00Z', 'at')?.toISOString()).toBe('2000-01-01T00:00:00.000Z');
    expect(instantOf(null, 'expiresAt')).toBeNull();
    expect(instantOf(undefined, 'at')).toBeUndefined();
    for (const bad of ['0050-01-01T00:00:00Z', '1999-12-31T23:59:59Z', '2026-06-30T23:59:60Z']) {
      expect(() => instantOf(bad, 'expiresAt')).toThrow(
        'expiresAt must be a real instant from 2000-01-01 on, as an ISO 8601 timestamp with a time zone',
      );
    }
  });
});

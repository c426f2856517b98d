import { describe, expect, it } from 'vitest';
import { parseTimestamp, roundedMean } from './time.ts';

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
});

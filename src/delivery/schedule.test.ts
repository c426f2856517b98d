import { describe, expect, it } from 'vitest';
import { isRetryable, MAX_RETRY_AFTER_MS, nextStep, parseRetryAfter } from './schedule.ts';

const BASE = 30_000;

describe('the retry schedule', () => {
  it('waits about 30 s, 2 min, 8 min and 32 min, within ±20 % jitter, then gives up after the 5th failure', () => {
    for (const [attempts, scheduled] of [
      [1, 30_000],
      [2, 120_000],
      [3, 480_000],
      [4, 1_920_000],
    ] as const) {
      expect(nextStep({ status: 500 }, attempts, BASE, 0)).toEqual({
        kind: 'retry',
        delayMs: scheduled * 0.8,
      });
      expect(nextStep({ status: 500 }, attempts, BASE, 0.5)).toEqual({ kind: 'retry', delayMs: scheduled });
      const high = nextStep({ status: 500 }, attempts, BASE, 0.999_999);
      expect(high.kind === 'retry' && high.delayMs).toBeCloseTo(scheduled * 1.2, -1);
    }
    expect(nextStep({ status: 500 }, 5, BASE, 0.5)).toEqual({ kind: 'dead' });
  });

  it('retries timeouts, network errors, 408, 429 and 5xx; dead-letters any other failure at once', () => {
    for (const status of [null, 408, 429, 500, 502, 503, 599]) expect(isRetryable(status)).toBe(true);
    for (const status of [301, 302, 400, 401, 404, 410, 422]) {
      expect(isRetryable(status)).toBe(false);
      expect(nextStep({ status }, 1, BASE)).toEqual({ kind: 'dead' });
    }
    for (const status of [200, 201, 204, 299])
      expect(nextStep({ status }, 5, BASE)).toEqual({ kind: 'succeeded' });
  });

  it('honours a longer Retry-After, up to a day, and ignores a shorter one', () => {
    expect(nextStep({ status: 429, retryAfterMs: 600_000 }, 1, BASE, 0.5)).toEqual({
      kind: 'retry',
      delayMs: 600_000,
    });
    expect(nextStep({ status: 503, retryAfterMs: 1_000 }, 1, BASE, 0.5)).toEqual({
      kind: 'retry',
      delayMs: 30_000,
    });
    expect(nextStep({ status: 429, retryAfterMs: 10 * MAX_RETRY_AFTER_MS }, 1, BASE, 0.5)).toEqual({
      kind: 'retry',
      delayMs: MAX_RETRY_AFTER_MS,
    });
  });

  it('reads Retry-After as seconds or an HTTP date, and nothing else', () => {
    const now = new Date('2026-05-20T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 20 May 2026 12:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('Wed, 20 May 2026 11:00:00 GMT', now)).toBe(0);
    for (const value of [undefined, '', '-5', '1.5', 'soon'])
      expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

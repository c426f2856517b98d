import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisUrl } from '../testing/stores.ts';
import { type RateLimiter, type RateLimits, rateLimitHeaders } from './limiter.ts';
import { MemoryRateLimiter } from './memory.ts';
import { RedisRateLimiter } from './redis.ts';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-05-20T12:00:00.000Z');

const backends: [string, (limits: RateLimits) => RateLimiter][] = [
  ['memory', (limits) => new MemoryRateLimiter(limits)],
];
if (redisUrl()) {
  backends.push([
    'redis',
    (limits) => new RedisRateLimiter(new Redis(redisUrl()), limits, `test:${randomUUID()}:`),
  ]);
}

describe.each(backends)('%s rate limiter', (_, create) => {
  const made: RateLimiter[] = [];
  const limiter = (limits: Partial<RateLimits> = {}) => {
    const l = create({ perKey: 5, perTeam: 8, windowMs: HOUR, ...limits });
    made.push(l);
    return l;
  };
  afterAll(async () => {
    await Promise.all(made.map((l) => l.close()));
  });
  const subject = (teamId = randomUUID()) => ({ keyId: randomUUID(), teamId });

  it('admits exactly the key limit, then refuses without consuming the team budget', async () => {
    const l = limiter();
    const s = subject();
    const results = [];
    for (let i = 0; i < 7; i++) results.push(await l.consume(s, T0 + i));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, true, true, false, false]);
    expect(results[4]?.key).toEqual({ limit: 5, remaining: 0, resetAtMs: T0 + HOUR });
    expect(results[6]?.team).toEqual({ limit: 8, remaining: 3, resetAtMs: T0 + HOUR });
  });

  it('spends the team budget across keys; a team refusal consumes nothing from the key', async () => {
    const l = limiter();
    const teamId = randomUUID();
    const [a, b, c] = [subject(teamId), subject(teamId), subject(teamId)];
    for (let i = 0; i < 4; i++) expect((await l.consume(a, T0)).allowed).toBe(true);
    for (let i = 0; i < 4; i++) expect((await l.consume(b, T0)).allowed).toBe(true);
    const refused = await l.consume(c, T0 + 1);
    expect(refused.allowed).toBe(false);
    expect(refused.team.remaining).toBe(0);
    expect(refused.key.remaining).toBe(5);
    // The 8 requests at T0 leave the window together; c's refused request had cost nothing.
    const later = await l.consume(c, T0 + HOUR);
    expect(later.allowed).toBe(true);
    expect(later.team.remaining).toBe(7);
    expect(later.key.remaining).toBe(4);
  });

  it('slides: never more than the limit in any rolling window, and frees places as the oldest leave', async () => {
    const l = limiter({ perKey: 3, perTeam: 100 });
    const s = subject();
    expect((await l.consume(s, T0)).allowed).toBe(true);
    expect((await l.consume(s, T0 + 1000)).allowed).toBe(true);
    expect((await l.consume(s, T0 + HOUR - 1)).allowed).toBe(true);
    // A fixed clock-aligned window would reset here; the rolling hour still holds 3.
    const edge = await l.consume(s, T0 + HOUR - 1);
    expect(edge.allowed).toBe(false);
    expect(edge.key.resetAtMs).toBe(T0 + HOUR);
    expect((await l.consume(s, T0 + HOUR)).allowed).toBe(true); // the first left
    expect((await l.consume(s, T0 + HOUR + 500)).allowed).toBe(false);
    expect((await l.consume(s, T0 + HOUR + 1000)).allowed).toBe(true); // the second left
  });

  it('counts exactly under concurrency: 1,200 at once on a fresh key admit 1,000', async () => {
    const l = limiter({ perKey: 1000, perTeam: 3000 });
    const s = subject();
    const decisions = await Promise.all(Array.from({ length: 1200 }, () => l.consume(s, T0)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(1000);
  });
});

describe('memory rate limiter bounds', () => {
  it('holds at most the limit per log and sweeps logs that have left the window', async () => {
    const l = new MemoryRateLimiter({ perKey: 10, perTeam: 1_000_000, windowMs: 1000 });
    const s = { keyId: 'k', teamId: 't' };
    for (let i = 0; i < 500; i++) l.consumeNow(s, T0 + i);
    expect(l.size()).toBe(20); // 10 in the key's log, the same 10 in the team's
    for (let i = 0; i < 10_000; i++) l.consumeNow({ keyId: `k${i}`, teamId: `t${i}` }, T0 + 10_000 + i);
    // The sweep at the 10,000th decision dropped every log whose entries had all expired:
    // 1,000 subjects were still in the window then, and 500 came after (2 entries each).
    expect(l.size()).toBe(3000);
  });
});

describe('rateLimitHeaders', () => {
  const limits = { perKey: 1000, perTeam: 3000, windowMs: HOUR };
  const now = T0;
  /** The headers for a decision with this much left of each budget, resetting so long from now. */
  const headersFor = (allowed: boolean, key: [number, number], team: [number, number]) =>
    rateLimitHeaders(
      {
        allowed,
        key: { limit: limits.perKey, remaining: key[0], resetAtMs: now + key[1] },
        team: { limit: limits.perTeam, remaining: team[0], resetAtMs: now + team[1] },
      },
      limits,
      now,
    );

  it('reports the tighter budget in X-RateLimit-* and both in the IETF pair', () => {
    const headers = headersFor(true, [998, 3_412_000], [2950, 3_412_000]);
    expect(headers).toEqual({
      'X-RateLimit-Limit': '1000',
      'X-RateLimit-Remaining': '998',
      'X-RateLimit-Reset': String(Math.ceil((now + 3_412_000) / 1000)),
      'RateLimit-Policy': '"key";q=1000;w=3600, "team";q=3000;w=3600',
      RateLimit: '"key";r=998;t=3412, "team";r=2950;t=3412',
    });
  });

  it('picks the team when it has less left, and says when a refused request may retry', () => {
    const headers = headersFor(false, [10, 100_000], [0, 1_500]);
    expect(headers['X-RateLimit-Limit']).toBe('3000');
    expect(headers['X-RateLimit-Remaining']).toBe('0');
    expect(headers['Retry-After']).toBe('2');
  });
});

describe.runIf(redisUrl())('Redis key prefix', () => {
  it('keeps two deployments sharing one Redis database apart, even for the same team and key ids', async () => {
    const limits = { perKey: 2, perTeam: 2, windowMs: HOUR };
    const run = randomUUID();
    const staging = new RedisRateLimiter(new Redis(redisUrl()), limits, `staging-${run}:`);
    const production = new RedisRateLimiter(new Redis(redisUrl()), limits, `production-${run}:`);
    try {
      const same = { keyId: randomUUID(), teamId: randomUUID() };
      for (let i = 0; i < 2; i++) expect((await staging.consume(same, T0 + i)).allowed).toBe(true);
      expect((await staging.consume(same, T0 + 2)).allowed).toBe(false);
      expect((await production.consume(same, T0 + 3)).allowed).toBe(true);
      const redis = new Redis(redisUrl());
      expect(await redis.keys(`staging-${run}:rl:*`)).toHaveLength(2);
      redis.disconnect();
    } finally {
      await staging.close();
      await production.close();
    }
  });
});

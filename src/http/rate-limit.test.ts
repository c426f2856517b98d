import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { DEFAULT_LIMITS, type RateLimits } from '../config.ts';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { createApiKey } from '../keys/commands.ts';
import type { RateLimiter } from '../rate-limit/limiter.ts';
import { MemoryRateLimiter } from '../rate-limit/memory.ts';
import { RedisRateLimiter } from '../rate-limit/redis.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { openApiContract } from '../testing/openapi-contract.ts';
import { openTestStore, redisUrl } from '../testing/stores.ts';

const SMALL: RateLimits = { perKey: 5, perTeam: 8, windowMs: 3_600_000 };
const START = '2026-05-20T12:00:00.000Z';

const backends: [string, (limits: RateLimits) => RateLimiter][] = [
  ['memory', (l) => new MemoryRateLimiter(l)],
];
if (redisUrl())
  backends.push(['redis', (l) => new RedisRateLimiter(new Redis(redisUrl()), l, `test:${randomUUID()}:`)]);

describe.each(backends)('rate limits over HTTP (%s)', (_, createLimiter) => {
  let db: Database;
  const clock = new ManualClock(START);
  const limiters: RateLimiter[] = [];

  beforeAll(async () => {
    db = await openTestStore('embedded');
  });
  afterAll(async () => {
    await Promise.all(limiters.map((l) => l.close()));
    await db.close();
  });

  async function appWith(limits: RateLimits) {
    const limiter = createLimiter(limits);
    limiters.push(limiter);
    const app = await buildApp({
      db,
      clock,
      appUrl: 'https://x.test',
      logger: { level: 'silent' },
      rateLimiter: limiter,
    });
    await app.ready();
    const matchesDocument = openApiContract(app);
    const get = async (url: string, key?: string, headers: Record<string, string> = {}) => {
      const response = await app.inject({
        url,
        headers: { ...(key ? { 'x-api-key': key } : {}), ...headers },
      });
      matchesDocument(url, response.statusCode, response.body, response.headers);
      return response;
    };
    return { app, get };
  }

  it('sends the budget headers on every authenticated response, 4xx and 304 included', async () => {
    clock.set(START);
    const { app, get } = await appWith(SMALL);
    const { teamId, key } = await teamWithKey(db, clock);
    const room = make.room(teamId);
    await load(db, clock, { dealRooms: [room] });
    const reset = String(Math.ceil((Date.parse(START) + 3_600_000) / 1000));

    const ok = await get('/v1/deal-rooms', key);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers).toMatchObject({
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '4',
      'x-ratelimit-reset': reset,
      'ratelimit-policy': '"key";q=5;w=3600, "team";q=8;w=3600',
      ratelimit: '"key";r=4;t=3600, "team";r=7;t=3600',
    });
    const notModified = await get('/v1/deal-rooms', key, { 'if-none-match': String(ok.headers.etag) });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['x-ratelimit-remaining']).toBe('3');
    const invalid = await get('/v1/deal-rooms?page=0', key);
    expect(invalid.statusCode).toBe(400);
    expect(invalid.headers['x-ratelimit-remaining']).toBe('2');
    const missing = await get(`/v1/deal-rooms/${randomUUID()}`, key);
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['x-ratelimit-remaining']).toBe('1');
    await app.close();
  });

  it('never counts unauthenticated requests, unknown paths or other methods', async () => {
    clock.set(START);
    const { app, get } = await appWith(SMALL);
    const { key } = await teamWithKey(db, clock);
    for (let i = 0; i < 10; i++) {
      const res = await get('/v1/deal-rooms', 'dr_live_wrong');
      expect(res.statusCode).toBe(401);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
      expect((await get('/v1/nowhere', key)).statusCode).toBe(404);
      expect(
        (await app.inject({ method: 'POST', url: '/v1/deal-rooms', headers: { 'x-api-key': key } }))
          .statusCode,
      ).toBe(405);
    }
    expect((await get('/v1/deal-rooms', key)).headers['x-ratelimit-remaining']).toBe('4');
    await app.close();
  });

  it('refuses past the key limit with the exact 429, consuming nothing, until the oldest request leaves', async () => {
    clock.set(START);
    const { app, get } = await appWith(SMALL);
    const { teamId, key } = await teamWithKey(db, clock);
    for (let i = 0; i < 5; i++) {
      expect((await get('/v1/deal-rooms', key)).statusCode).toBe(200);
      clock.advance(60_000);
    }
    for (let i = 0; i < 3; i++) {
      const refused = await get('/v1/deal-rooms', key);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(refused.body)).toEqual({ error: 'Rate limit exceeded', code: 'rate_limit' });
      expect(refused.headers['x-ratelimit-limit']).toBe('5');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['x-ratelimit-reset']).toBe(
        String(Math.ceil((Date.parse(START) + 3_600_000) / 1000)),
      );
      expect(refused.headers['retry-after']).toBe(String((3_600_000 - 5 * 60_000) / 1000));
      expect(refused.headers.etag).toBeUndefined();
    }
    // The refused requests cost the team nothing: 8 - 5 are left for another key.
    const other = await createApiKey({ db: db, clock: clock, appUrl: '' }, { teamId });
    const res = await get('/v1/deal-rooms', other.key);
    expect(res.headers.ratelimit).toContain('"team";r=2;');

    const retryAfter = Number((await get('/v1/deal-rooms', key)).headers['retry-after']);
    clock.advance(retryAfter * 1000 - 1);
    expect((await get('/v1/deal-rooms', key)).statusCode).toBe(429);
    clock.advance(1);
    expect((await get('/v1/deal-rooms', key)).statusCode).toBe(200);
    await app.close();
  });

  it("spends a team's budget over several keys", async () => {
    clock.set(START);
    const { app, get } = await appWith(SMALL);
    const { teamId, key } = await teamWithKey(db, clock);
    const keys = [key];
    for (let i = 0; i < 3; i++)
      keys.push((await createApiKey({ db: db, clock: clock, appUrl: '' }, { teamId })).key);
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await get('/v1/deal-rooms', keys[i % 4])).statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(8);
    const refused = await get('/v1/deal-rooms', keys[0]);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['x-ratelimit-limit']).toBe('8');
    expect(refused.headers.ratelimit).toMatch(/^"key";r=3;t=\d+, "team";r=0;t=\d+$/);
    await app.close();
  });

  it('admits exactly 1,000 of 1,200 simultaneous requests on a fresh key (default limits)', async () => {
    clock.set(START);
    const { app, get } = await appWith(DEFAULT_LIMITS);
    const { key } = await teamWithKey(db, clock);
    const responses = await Promise.all(Array.from({ length: 1200 }, () => get('/v1/deal-rooms', key)));
    const codes = responses.map((r) => r.statusCode);
    expect(codes.filter((c) => c !== 429)).toHaveLength(1000);
    expect(codes.filter((c) => c === 429)).toHaveLength(200);
    await app.close();
  });
});

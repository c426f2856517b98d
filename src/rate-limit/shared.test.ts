import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { make } from '../testing/fixtures.ts';
import { dealroom, type Server, startServer } from '../testing/process.ts';
import { freshStoreEnv, postgresUrl, redisUrl } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

describe.runIf(postgresUrl() && redisUrl())('rate limits across processes', () => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const servers: Server[] = [];
  const team = make.team();

  beforeAll(async () => {
    ({ env, drop } = await freshStoreEnv('postgres', { migrated: true }));
    Object.assign(env, {
      REDIS_URL: redisUrl(),
      RATE_LIMIT_PER_KEY: '30',
      RATE_LIMIT_PER_TEAM: '45',
      LOG_LEVEL: 'warn',
    });
    const file = join(tempDir('rl'), 'team.json');
    writeFileSync(file, JSON.stringify({ teams: [team] }));
    expect((await dealroom(['import', file], env)).code).toBe(0);
    servers.push(await startServer([], env), await startServer([], env));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await drop?.();
  });

  it('two servers on one Redis share each budget exactly', async () => {
    const keyA = (await dealroom(['keys', 'create', '--team', team.id as string], env)).stdout.trim();
    const keyB = (await dealroom(['keys', 'create', '--team', team.id as string], env)).stdout.trim();
    const fire = (key: string, count: number) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          fetch(`${servers[i % 2]?.base}/v1/deal-rooms`, { headers: { 'x-api-key': key } }).then(
            (r) => r.status,
          ),
        ),
      );
    const first = await fire(keyA, 50);
    expect(first.filter((s) => s === 200)).toHaveLength(30);
    expect(first.filter((s) => s === 429)).toHaveLength(20);
    // The team has 45: key B gets the 15 left, whichever server it asks.
    const second = await fire(keyB, 30);
    expect(second.filter((s) => s === 200)).toHaveLength(15);
  });
});

/** A Redis server of the test's own on a free port, to stop and start again. */
async function ownRedis(port: number) {
  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn('redis-server', [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'yes',
      ]);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`redis-server exited ${code}`)),
      );
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      spawn('redis-cli', ['-p', String(port), 'shutdown', 'nosave']).on('close', () => resolve());
    });
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}

describe.runIf(redisUrl())('Redis outage', () => {
  it('keeps answering with per-process limits, reports degraded, and recovers', async () => {
    const { buildApp } = await import('../app.ts');
    const { createRateLimiter } = await import('./create.ts');
    const { createMetrics } = await import('../core/metrics.ts');
    const { openTestStore } = await import('../testing/stores.ts');
    const { teamWithKey } = await import('../testing/fixtures.ts');
    const { ManualClock } = await import('../core/clock.ts');
    const pino = (await import('pino')).default;
    const { Redis } = await import('ioredis');
    const redis = await ownRedis(20_000 + Math.floor(Math.random() * 20_000));
    const db = await openTestStore('embedded');
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    const metrics = createMetrics();
    const logger = pino({ level: 'silent' });
    const { limiter, healthChecks } = createRateLimiter(
      { perKey: 3, perTeam: 10, windowMs: 3_600_000 },
      redis.url,
      logger,
      metrics,
    );
    const app = await buildApp({
      db,
      clock,
      appUrl: 'https://x.test',
      logger,
      rateLimiter: limiter,
      metrics,
      healthChecks,
    });
    const get = (url: string, key?: string) => app.inject({ url, headers: key ? { 'x-api-key': key } : {} });
    const waitFor = async (test: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await test()); i++) await new Promise((r) => setTimeout(r, 100));
    };
    try {
      await waitFor(
        async () =>
          (await get('/readyz')).statusCode === 200 &&
          JSON.parse((await get('/readyz')).body).status === 'ok',
      );
      const { key } = await teamWithKey(db, clock);
      expect((await get('/v1/deal-rooms', key)).headers['x-ratelimit-remaining']).toBe('2');
      // A key first used once Redis is back: a slow moment that made a request count in this
      // process (above, or as Redis returns) leaves its count here at zero all the same.
      const after = await teamWithKey(db, clock);
      // A key first used during the outage: its count in this process starts from zero even
      // if a slow moment of this loaded machine made the request above count here too.
      const { key: outageKey } = await teamWithKey(db, clock);

      await redis.stop();
      const during = await get('/v1/deal-rooms', outageKey);
      expect(during.statusCode).toBe(200);
      // Counting went on in this process, from zero: the shared count is out of reach.
      expect(during.headers['x-ratelimit-remaining']).toBe('2');
      for (let i = 0; i < 2; i++) await get('/v1/deal-rooms', outageKey);
      expect((await get('/v1/deal-rooms', outageKey)).statusCode).toBe(429);
      const ready = await get('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(JSON.parse(ready.body)).toEqual({
        status: 'degraded',
        checks: { database: 'ok', rateLimiter: 'unavailable' },
      });
      const scraped = await metrics.registry.metrics();
      expect(scraped).toMatch(/^dealroom_rate_limit_degraded 1$/m);
      expect(scraped).toMatch(/^dealroom_rate_limit_backend_errors_total [1-9]/m);

      await redis.start();
      await waitFor(async () => JSON.parse((await get('/readyz')).body).status === 'ok');
      const back = await get('/v1/deal-rooms', after.key);
      expect(back.statusCode).toBe(200);
      expect(back.headers['x-ratelimit-remaining']).toBe('2');
      expect((await get('/v1/deal-rooms', after.key)).headers['x-ratelimit-remaining']).toBe('1');
      // Counted in Redis again: both requests are in the key's log there.
      const shared = new Redis(redis.url);
      try {
        expect(await shared.zcard(`dealroom:rl:{${after.teamId}}:key:${after.keyId}`)).toBe(2);
      } finally {
        shared.disconnect();
      }
      expect(await metrics.registry.metrics()).toMatch(/^dealroom_rate_limit_degraded 0$/m);
    } finally {
      await app.close();
      await limiter.close();
      await db.close();
      await redis.stop();
    }
  });
});

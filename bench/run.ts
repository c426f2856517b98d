/**
 * `npm run bench`: throughput and latency of the read API on demo-sized data, each figure
 * also given as a ratio to a baseline measured in the same run (the machine is noisy, so
 * only ratios compare across runs). Bounded: a few seconds per scenario, loopback only.
 *
 *   BENCH_SECONDS (default 4), BENCH_CONNECTIONS (default 10),
 *   BENCH_DATABASE_URL (PostgreSQL instead of the embedded store), BENCH_REDIS_URL
 *   (default redis://127.0.0.1:6379 when it answers).
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import type { Database } from '../src/db/database.ts';
import { openEmbedded } from '../src/db/embedded.ts';
import { migrate } from '../src/db/migrate.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { datasetRecords } from '../src/import/dataset.ts';
import { importRecords } from '../src/import/service.ts';
import { createApiKey } from '../src/keys/service.ts';
import type { RateLimiter } from '../src/rate-limit/limiter.ts';
import { MemoryRateLimiter } from '../src/rate-limit/memory.ts';
import { RedisRateLimiter } from '../src/rate-limit/redis.ts';
import { DEMO_TEAM_ID, demoDataset } from '../src/seed/demo.ts';
import { systemClock } from '../src/shared/clock.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const UNLIMITED = { perKey: 1e9, perTeam: 1e9, windowMs: 3_600_000 };

/** A fresh store; on PostgreSQL a schema of its own that `close` drops. */
async function openBenchStore(): Promise<Database> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    const db = await openEmbedded(undefined);
    await migrate(db);
    return db;
  }
  const schema = `bench_${randomUUID().slice(0, 8)}`;
  const db = await openPostgres({ connectionString: url, schema });
  await migrate(db);
  return {
    ...db,
    async close() {
      // Drop from a connection of its own once the pool is closed, so no query of the
      // pool can still hold a lock the DROP waits for.
      await db.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

async function redisIfReachable(): Promise<Redis | undefined> {
  const redis = new Redis(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch {
    redis.disconnect();
    return undefined;
  }
}

interface Result {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(
  name: string,
  db: Database,
  key: string,
  path: string,
  rateLimiter?: RateLimiter,
): Promise<Result> {
  const app = await buildApp({
    db,
    clock: systemClock,
    appUrl: 'http://bench.local',
    logger: false,
    ...(rateLimiter ? { rateLimiter } : {}),
  });
  const url = `${await app.listen({ port: 0, host: '127.0.0.1' })}${path}`;
  await autocannon({ url, connections: CONNECTIONS, duration: 1, headers: { 'x-api-key': key } }); // warm-up
  const run = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: { 'x-api-key': key },
  });
  await app.close();
  const errors = run.errors + run.non2xx;
  return { name, rps: run.requests.average, p50: run.latency.p50, p99: run.latency.p99, errors };
}

async function main() {
  const db = await openBenchStore();
  const started = Date.now();
  const counts = await importRecords(db, systemClock, datasetRecords(demoDataset(new Date())));
  const importMs = Date.now() - started;
  const { key } = await createApiKey(db, systemClock, { teamId: DEMO_TEAM_ID, name: 'bench' });
  const rooms = await db.query<{ id: string }>(
    'SELECT deal_room_id AS id FROM views GROUP BY deal_room_id ORDER BY count(*) DESC LIMIT 1',
  );
  const busiest = rooms[0]?.id ?? '';
  console.log(
    `store: ${db.kind}; demo data: ${counts.view} views, ${counts.visit} visits imported in ${importMs} ms`,
  );
  console.log(`each scenario: ${SECONDS} s, ${CONNECTIONS} connections\n`);

  // The baseline runs before and after the limiter scenarios and counts as their mean, so
  // warm-up and drift do not favour whichever runs later.
  const before = await measure('baseline', db, key, '/v1/deal-rooms');
  const limited: Result[] = [];
  limited.push(
    await measure(
      'GET /v1/deal-rooms, memory limiter',
      db,
      key,
      '/v1/deal-rooms',
      new MemoryRateLimiter(UNLIMITED),
    ),
  );
  const redis = await redisIfReachable();
  if (redis) {
    limited.push(
      await measure(
        'GET /v1/deal-rooms, Redis limiter',
        db,
        key,
        '/v1/deal-rooms',
        new RedisRateLimiter(redis, UNLIMITED, `bench:${randomUUID()}`),
      ),
    );
  }
  const after = await measure('baseline', db, key, '/v1/deal-rooms');
  const baseline: Result = {
    name: 'GET /v1/deal-rooms, limiting off (baseline)',
    rps: (before.rps + after.rps) / 2,
    p50: Math.max(before.p50, after.p50),
    p99: Math.max(before.p99, after.p99),
    errors: before.errors + after.errors,
  };
  const results: Result[] = [baseline, ...limited];
  results.push(await measure('GET /v1/deal-rooms/{busiest}', db, key, `/v1/deal-rooms/${busiest}`));
  results.push(
    await measure('GET …/viewers (page 1 of the busiest room)', db, key, `/v1/deal-rooms/${busiest}/viewers`),
  );
  results.push(
    await measure(
      'GET …/analytics?period=all (busiest room)',
      db,
      key,
      `/v1/deal-rooms/${busiest}/analytics?period=all`,
    ),
  );
  results.push(
    await measure(
      'GET …/analytics?period=7d (busiest room)',
      db,
      key,
      `/v1/deal-rooms/${busiest}/analytics?period=7d`,
    ),
  );

  const pad = Math.max(...results.map((r) => r.name.length));
  console.log(`${'scenario'.padEnd(pad)}  req/s    ×baseline  p50 ms  p99 ms  errors`);
  console.log(`(baseline runs: ${before.rps.toFixed(0)} and ${after.rps.toFixed(0)} req/s)`);
  for (const r of results) {
    const ratio = (r.rps / baseline.rps).toFixed(2);
    console.log(
      `${r.name.padEnd(pad)}  ${r.rps.toFixed(0).padStart(6)}   ${ratio.padStart(8)}  ${String(r.p50).padStart(6)}  ${String(r.p99).padStart(6)}  ${r.errors}`,
    );
  }
  const limiterCost = results
    .filter((r) => r.name.includes('limiter'))
    .map(
      (r) =>
        `${r.name.split(', ')[1]}: ${(baseline.rps / r.rps).toFixed(2)}× the baseline's time per request`,
    );
  console.log(`\nlimiter cost per request: ${limiterCost.join('; ')}`);
  console.log(`rss: ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MiB`);
  redis?.disconnect();
  await db.close();
  if (results.some((r) => r.errors > 0)) process.exitCode = 1;
}

await main();

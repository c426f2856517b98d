import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { runTempFolder } from './temp.ts';
import { dropDatabaseStatement, makeTemplates, runDatabasePrefix, type StoreTemplates } from './templates.ts';
import { bundleThreads } from './thread-bundles.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
    redisUrl: string;
    /** Names this run's PostgreSQL test databases (testing/lent-stores.ts). */
    runId: string;
    templates: StoreTemplates;
  }
}

export const DEFAULT_TEST_POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Decides once whether the shared suites also run on PostgreSQL: TEST_DATABASE_URL, or the
 * local server when it answers. With REQUIRE_POSTGRES=1 (CI) an unreachable server fails
 * the run instead of skipping those suites. Makes the stores' templates (kept for later
 * runs), the threads' bundles and the run's temp folder (both removed after the run).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL || DEFAULT_TEST_POSTGRES;
  const reachable = await canConnect(url);
  if (!reachable && process.env.REQUIRE_POSTGRES === '1') {
    throw new Error(
      `REQUIRE_POSTGRES=1 but PostgreSQL at ${url.replace(/:[^:@/]*@/, ':***@')} is not reachable`,
    );
  }
  if (!reachable) console.warn(`PostgreSQL not reachable at ${url}: running on the embedded store only`);
  project.provide('postgresUrl', reachable ? url : '');

  const redisUrl = process.env.TEST_REDIS_URL || DEFAULT_TEST_REDIS;
  const redisReachable = await canPing(redisUrl);
  if (!redisReachable && process.env.REQUIRE_REDIS === '1') {
    throw new Error(`REQUIRE_REDIS=1 but Redis at ${redisUrl} is not reachable`);
  }
  if (!redisReachable) console.warn(`Redis not reachable at ${redisUrl}: skipping the Redis suites`);
  project.provide('redisUrl', redisReachable ? redisUrl : '');

  // Each store is migrated once and kept; every suite gets a copy (testing/stores.ts).
  project.provide('templates', await makeTemplates(reachable ? url : ''));
  const runId = randomBytes(4).toString('hex');
  project.provide('runId', runId);
  // Set before the forks start, which inherit them. The threads' bundles are for the forks
  // (the processes they spawn ignore them); the temp folder is every process's.
  const threads = await bundleThreads();
  Object.assign(process.env, threads.env);
  const temp = runTempFolder();
  if (temp.path) process.env.TMPDIR = temp.path;
  return async () => {
    threads.remove();
    temp.remove();
    if (reachable) await dropRunDatabases(url, runDatabasePrefix(runId));
  };
}

/**
 * The run's databases still there at its end: those the forks lent from suite to suite and
 * kept, and any a suite that crashed left behind.
 */
async function dropRunDatabases(url: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT datname AS name FROM pg_database WHERE starts_with(datname, $1)`,
      [prefix],
    );
    for (const { name } of rows) await client.query(dropDatabaseStatement(name));
  } finally {
    await client.end();
  }
}

export const DEFAULT_TEST_REDIS = 'redis://127.0.0.1:6379';

async function canPing(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

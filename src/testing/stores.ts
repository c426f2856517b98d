import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import type { Database } from '../db/database.ts';
import { openEmbedded } from '../db/embedded.ts';
import { loadMigrations, migrate } from '../db/migrate.ts';
import { openPostgres, quoteIdent } from '../db/postgres.ts';
import { tempDir } from './temp.ts';

export type StoreKind = 'embedded' | 'postgres';

/**
 * The stores every shared suite runs on: the embedded one always, PostgreSQL when reachable.
 * TEST_STORES=postgres keeps to PostgreSQL (CI's extra passes on other Node versions).
 */
export function storeKinds(): StoreKind[] {
  if (process.env.TEST_STORES === 'postgres' && inject('postgresUrl')) return ['postgres'];
  return inject('postgresUrl') ? ['embedded', 'postgres'] : ['embedded'];
}

export function redisUrl(): string {
  return inject('redisUrl');
}

export function postgresUrl(): string {
  return inject('postgresUrl');
}

/**
 * A migrated, empty store of its own: an in-memory PGlite, or a fresh schema on the test
 * PostgreSQL that `close` drops.
 */
export async function openTestStore(
  kind: StoreKind,
  pool: { maxConnections?: number; maxWaiting?: number; maxWaitMs?: number; lockTimeoutMs?: number } = {},
  migrations = loadMigrations(),
): Promise<Database> {
  if (kind === 'embedded') {
    // Tests share two cores with a browser and several servers: a statement may wait its turn
    // far longer than in service, and a timeout would restart an in-memory store empty.
    const db = await openEmbedded(undefined, { statementTimeoutMs: 60_000 });
    await migrate(db, migrations);
    return db;
  }
  const url = inject('postgresUrl');
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = await openPostgres({ connectionString: url, schema, maxConnections: 4, ...pool });
  await migrate(db, migrations);
  return {
    ...db,
    async close() {
      await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await db.close();
    },
  };
}

/**
 * For a suite that wants a fresh store per test: each call gives the environment of a new
 * store of the kind, and every one is dropped after the suite.
 */
export function freshStores(kind: StoreKind): () => Promise<Record<string, string>> {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  return async () => {
    const { env, drop } = await freshStoreEnv(kind);
    drops.push(drop);
    return env;
  };
}

/** Environment selecting a fresh store of the kind: a new data folder, or a new database. */
export async function freshStoreEnv(
  kind: StoreKind,
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = tempDir('cli');
  // The web app on any free port: suites start services side by side.
  if (kind === 'embedded') {
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '', WEB_PORT: '0' }, drop: async () => {} };
  }
  const name = `dealroom_cli_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir, WEB_PORT: '0' },
    drop: async () => {
      const client = new pg.Client({ connectionString: postgresUrl() });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

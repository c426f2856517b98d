import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import type { Database } from '../db/database.ts';
import { openEmbedded } from '../db/embedded.ts';
import { type Migration, migrate } from '../db/migrate.ts';
import { openPostgres, quoteIdent } from '../db/postgres.ts';
import { lentEmbeddedStore } from './lent-stores.ts';
import { tempDir } from './temp.ts';
import { databaseUrl } from './templates.ts';

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

/** A test store, and on PostgreSQL the address of its own database. */
export type TestStore = Database & { url?: string };

/**
 * A migrated, empty store of its own, cloned from the run's template: an in-memory PGlite
 * loaded from the migrated tarball, or a database created from the migrated template that
 * `close` drops. A store at other migrations (the migration tests) is migrated here instead.
 */
export async function openTestStore(
  kind: StoreKind,
  pool: { maxConnections?: number; maxWaiting?: number; maxWaitMs?: number; lockTimeoutMs?: number } = {},
  migrations?: Migration[],
): Promise<TestStore> {
  const templates = inject('templates');
  if (kind === 'embedded') {
    if (!migrations) return lentEmbeddedStore();
    const db = await openEmbedded(undefined, { statementTimeoutMs: 60_000 });
    await migrate(db, migrations);
    return db;
  }
  const server = inject('postgresUrl');
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(
    server,
    migrations
      ? `CREATE DATABASE ${quoteIdent(name)}`
      : `CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(templates.postgresTemplate)}`,
  );
  const url = databaseUrl(server, name);
  const db = await openPostgres({ connectionString: url, maxConnections: 4, ...pool });
  if (migrations) await migrate(db, migrations);
  return {
    ...db,
    url,
    async close() {
      await db.close();
      await adminQuery(server, `DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
    },
  };
}

async function adminQuery(server: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
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

/**
 * Environment selecting a fresh, unmigrated store of the kind: a new data folder holding a
 * copy of the template's empty cluster (booting one costs seconds), or a new database.
 */
export async function freshStoreEnv(
  kind: StoreKind,
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = tempDir('cli');
  // The web app on any free port: suites start services side by side.
  if (kind === 'embedded') {
    cpSync(inject('templates').embeddedEmpty, join(dataDir, 'pgdata'), { recursive: true });
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '', WEB_PORT: '0' }, drop: async () => {} };
  }
  const name = `dealroom_cli_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await adminQuery(postgresUrl(), `CREATE DATABASE ${name}`);
  return {
    env: { DATABASE_URL: databaseUrl(postgresUrl(), name), DATA_DIR: dataDir, WEB_PORT: '0' },
    drop: () => adminQuery(postgresUrl(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

/** A data folder at `dataDir` holding a copy of the migrated embedded store, as `dealroom migrate` leaves one. */
export function migratedStoreFolder(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  cpSync(inject('templates').embeddedMigratedFolder, join(dataDir, 'pgdata'), { recursive: true });
}

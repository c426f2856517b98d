import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';
import type { Database } from '../db/database.ts';
import { openEmbedded } from '../db/embedded.ts';
import { type Migration, migrate } from '../db/migrate.ts';
import { openPostgres } from '../db/postgres.ts';
import { lentEmbeddedStore, lentPostgresDatabase } from './lent-stores.ts';
import { tempDir } from './temp.ts';
import { createDatabase, databaseUrl, dropDatabase, runDatabaseName } from './templates.ts';

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
 * loaded from the migrated tarball, or a database created from the migrated template; either
 * may be one an earlier suite closed, emptied (testing/lent-stores.ts). A store at other
 * migrations (the migration tests) is migrated here instead, and dropped by `close`.
 */
export async function openTestStore(
  kind: StoreKind,
  pool: { maxConnections?: number; maxWaiting?: number; maxWaitMs?: number; lockTimeoutMs?: number } = {},
  migrations?: Migration[],
): Promise<TestStore> {
  if (kind === 'embedded') {
    if (!migrations) return lentEmbeddedStore();
    const db = await openEmbedded(undefined, { statementTimeoutMs: 60_000 });
    await migrate(db, migrations);
    return db;
  }
  const server = inject('postgresUrl');
  if (!migrations) {
    const lent = await lentPostgresDatabase();
    const url = databaseUrl(server, lent.name);
    const db = await openPostgres({ connectionString: url, maxConnections: 4, ...pool });
    let closing: Promise<void> | undefined;
    return {
      ...db,
      url,
      close() {
        closing ??= db.close().then(() => lent.giveBack());
        return closing;
      },
    };
  }
  const name = runDatabaseName(inject('runId'), 'm_');
  await createDatabase(server, name);
  const url = databaseUrl(server, name);
  const db = await openPostgres({ connectionString: url, maxConnections: 4, ...pool });
  await migrate(db, migrations);
  return {
    ...db,
    url,
    async close() {
      await db.close();
      await dropDatabase(server, name);
    },
  };
}

/** `migrated`: the store as `dealroom migrate` leaves it, instead of empty (freshStoreEnv). */
export interface FreshStoreOptions {
  migrated?: boolean;
}

/**
 * For a suite that wants a fresh store per test: each call gives the environment of a new
 * store of the kind, and every one is dropped after the suite.
 */
export function freshStores(
  kind: StoreKind,
): (options?: FreshStoreOptions) => Promise<Record<string, string>> {
  const drops: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const drop of drops) await drop();
  });
  return async (options) => {
    const { env, drop } = await freshStoreEnv(kind, options);
    drops.push(drop);
    return env;
  };
}

/**
 * Environment selecting a fresh store of the kind. Unmigrated by default: a new data folder
 * holding a copy of the template's empty cluster (booting one costs seconds), or a new
 * database. `migrated`: a copy of the run's migrated store (a folder copied, a database made
 * from the template), for suites whose subject is not migrating; migrating an embedded store
 * from nothing costs about five CPU-seconds.
 */
export async function freshStoreEnv(
  kind: StoreKind,
  { migrated = false }: FreshStoreOptions = {},
): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = tempDir('cli');
  // The web app on any free port: suites start services side by side.
  if (kind === 'embedded') {
    storeFolder(dataDir, migrated ? 'embeddedMigratedFolder' : 'embeddedEmpty');
    return { env: { DATA_DIR: dataDir, DATABASE_URL: '', WEB_PORT: '0' }, drop: async () => {} };
  }
  const server = postgresUrl();
  // Named with the run's prefix: one a crashed suite leaves behind is dropped at the run's end.
  const name = runDatabaseName(inject('runId'), 'cli_');
  await createDatabase(server, name, migrated ? inject('templates').postgresTemplate : undefined);
  return {
    env: { DATABASE_URL: databaseUrl(server, name), DATA_DIR: dataDir, WEB_PORT: '0' },
    drop: () => dropDatabase(server, name),
  };
}

/** A data folder at `dataDir` holding a copy of the migrated embedded store, as `dealroom migrate` leaves one. */
export function migratedStoreFolder(dataDir: string): void {
  storeFolder(dataDir, 'embeddedMigratedFolder');
}

/** A data folder at `dataDir` holding a copy of one of the run's embedded store folders. */
function storeFolder(dataDir: string, template: 'embeddedEmpty' | 'embeddedMigratedFolder'): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  cpSync(inject('templates')[template], join(dataDir, 'pgdata'), { recursive: true });
}

import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import type { Database } from '../db/database.ts';
import { openEmbedded } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { openPostgres, quoteIdent } from '../db/postgres.ts';

export type StoreKind = 'embedded' | 'postgres';

/** The stores every shared suite runs on: the embedded one always, PostgreSQL when reachable. */
export function storeKinds(): StoreKind[] {
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
export async function openTestStore(kind: StoreKind): Promise<Database> {
  if (kind === 'embedded') {
    const db = await openEmbedded(undefined);
    await migrate(db);
    return db;
  }
  const url = inject('postgresUrl');
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const db = await openPostgres({ connectionString: url, schema, maxConnections: 4 });
  await migrate(db);
  return {
    ...db,
    async close() {
      await db.query(`DROP SCHEMA IF EXISTS ${quoteIdent(schema)} CASCADE`);
      await db.close();
    },
  };
}

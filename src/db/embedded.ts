import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.ts';

/**
 * The embedded store: PGlite (PostgreSQL in WebAssembly) kept in a folder, or in memory
 * when `dataDir` is undefined. One process at a time may open a folder; see lock.ts.
 */
export async function openEmbedded(dataDir: string | undefined): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;

  const asQueryable = (target: Pick<PGlite, 'query' | 'exec'>): Queryable => ({
    async query<Row>(sql: string, params?: readonly unknown[]) {
      const result = await target.query<Row>(sql, params as unknown[] | undefined);
      return result.rows;
    },
    async exec(script: string) {
      await target.exec(script);
    },
  });

  return {
    kind: 'embedded',
    ...asQueryable(db),
    transaction: (work) => db.transaction((tx) => work(asQueryable(tx))),
    async ping() {
      await db.query('SELECT 1');
    },
    async close() {
      await db.close();
    },
  };
}

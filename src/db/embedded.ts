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
    async copyFrom(table: string, columns: readonly string[], text: string) {
      // PGlite reads COPY input from a Blob handed to the query as /dev/blob.
      await target.query(`COPY ${table} (${columns.join(', ')}) FROM '/dev/blob'`, [], {
        blob: new Blob([text]),
      });
    },
  });

  return {
    kind: 'embedded',
    ...asQueryable(db),
    transaction: (work) => db.transaction((tx) => work(asQueryable(tx))),
    // PGlite queues queries itself, one at a time; there is no pool to wait for.
    poolStats: () => ({ waits: 0, sheds: 0, waiting: 0 }),
    async ping() {
      await db.query('SELECT 1');
    },
    async close() {
      await db.close();
    },
  };
}

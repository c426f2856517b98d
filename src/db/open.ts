import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from './database.ts';
import { openEmbedded } from './embedded.ts';
import { type DataDirLock, lockDataDir } from './lock.ts';
import { openPostgres } from './postgres.ts';

export interface OpenedStore {
  db: Database;
  /** Held for the embedded store only. */
  lock?: DataDirLock;
}

/**
 * PostgreSQL when DATABASE_URL is set, else the embedded store under DATA_DIR (locked for
 * this process). Throws StoreBusyError when another process holds the embedded store.
 */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'pool'>>,
  onPoolError?: (err: Error) => void,
): Promise<OpenedStore> {
  if (config.databaseUrl) {
    const db = await openPostgres({
      connectionString: config.databaseUrl,
      ...(config.pool
        ? {
            maxConnections: config.pool.size,
            maxWaiting: config.pool.maxWaiting,
            maxWaitMs: config.pool.maxWaitMs,
          }
        : {}),
      ...(onPoolError ? { onError: onPoolError } : {}),
    });
    return { db };
  }
  const dataDir = resolve(config.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    const db = await openEmbedded(resolve(dataDir, 'pgdata'));
    const close = db.close.bind(db);
    return {
      db: {
        ...db,
        async close() {
          await close();
          lock.release();
        },
      },
      lock,
    };
  } catch (err) {
    lock.release();
    throw err;
  }
}

import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../config.ts';
import type { Database } from './database.ts';
import { openEmbedded } from './embedded.ts';
import { type DataDirLock, LOCK_FILE, lockDataDir } from './lock.ts';
import { openPostgres } from './postgres.ts';

export interface OpenedStore {
  db: Database;
  /** Held for the embedded store only. */
  lock?: DataDirLock;
}

/** The data folder cannot be used as it is; the message says what to do. */
export class DataDirError extends Error {}

/** What a data folder may hold besides the store itself. */
const OWN_FILES = new Set([LOCK_FILE, 'control.sock']);

/**
 * PostgreSQL when DATABASE_URL is set, else the embedded store under DATA_DIR (locked for
 * this process). Throws StoreBusyError when another process holds the embedded store, and
 * DataDirError when the folder is open to other users or is not a complete store.
 */
export async function openStore(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'pool'>>,
  onAvailability?: (available: boolean, err?: unknown) => void,
  /** The embedded store's limit on one statement (an import's grow with its size). */
  embedded: { statementTimeoutMs?: number } = {},
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
      ...(onAvailability ? { onAvailability } : {}),
    });
    return { db };
  }
  const dataDir = resolve(config.dataDir);
  // Everything this process creates from here on (the store's files, WAL, the lock and the
  // control socket) is the user's alone, whatever umask it was started with.
  process.umask(0o077);
  prepareDataDir(dataDir);
  const lock = lockDataDir(dataDir);
  try {
    const pgdata = join(dataDir, 'pgdata');
    let db: Database;
    try {
      db = await openEmbedded(pgdata, embedded);
    } catch (err) {
      throw new DataDirError(
        `the embedded store in ${pgdata} could not be opened (${describe(err)}); it may be damaged. Restore ${dataDir} from a backup, or move it away to start with an empty store`,
      );
    }
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

/**
 * Creates the folder 0700, or checks the one there: reachable by group or others is refused
 * (as PostgreSQL refuses its data directory), and so is a folder that holds something other
 * than a complete store, so a damaged store never opens as an empty one.
 */
function prepareDataDir(dataDir: string): void {
  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    return;
  }
  const stat = statSync(dataDir);
  if (!stat.isDirectory()) {
    throw new DataDirError(
      `DATA_DIR ${dataDir} is a file, not a folder; point DATA_DIR at a folder (a missing one is made)`,
    );
  }
  // As PostgreSQL does: another user's folder could be read, or swapped, by that user.
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new DataDirError(
      `${dataDir} belongs to another user (uid ${stat.uid}) and this process runs as uid ${uid}; use a folder of this user's own (chown it, or point DATA_DIR elsewhere)`,
    );
  }
  const mode = stat.mode & 0o777;
  if ((mode & 0o077) !== 0) {
    throw new DataDirError(
      `${dataDir} can be read by other users (mode ${mode.toString(8).padStart(4, '0')}); it holds viewer emails and key hashes. Run: chmod 700 ${dataDir}`,
    );
  }
  const pgdata = join(dataDir, 'pgdata');
  const others = readdirSync(dataDir).filter((name) => name !== 'pgdata' && !OWN_FILES.has(name));
  if (!existsSync(pgdata)) {
    if (others.length > 0) {
      throw new DataDirError(
        `${dataDir} is not empty and holds no store (found ${others.slice(0, 3).join(', ')}); point DATA_DIR at an empty or new folder`,
      );
    }
    return;
  }
  const inside = readdirSync(pgdata);
  if (inside.length > 0 && !inside.includes('PG_VERSION')) {
    throw new DataDirError(
      `${pgdata} is not a complete store (PG_VERSION is missing): it may be damaged. Restore ${dataDir} from a backup, or move it away to start with an empty store`,
    );
  }
}

/** A short reason; the database engine's own abort text means nothing to an operator. */
function describe(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/abort/i.test(message)) return 'the database engine stopped while reading it';
  return message.split('\n')[0]?.slice(0, 200) ?? 'unknown error';
}

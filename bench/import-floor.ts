/**
 * The import's floor: the least any import of the same events can take on the same store,
 * measured in the same run as the import. The imported store is cloned (so every team, room,
 * document, link and viewer the events refer to is there), its event tables are emptied, and
 * the same event rows are written back in one transaction by one COPY per table (in COPY's
 * binary format, as the import sends them), into the service's own tables with all their indexes and foreign keys. Nothing else: no file read, no
 * record checked, no viewer resolved, no figure kept. The import is reported as a multiple of
 * it, as a read is against the one-query route.
 */
import { cpSync, createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { EMBEDDED_SETTINGS } from '../src/db/pglite-thread.ts';
import { quoteIdent } from '../src/db/postgres.ts';

/** The tables an import writes one row to per event (view_pages and notifications stay empty). */
const EVENT_TABLES = ['views', 'visits', 'downloads'] as const;

/** Seconds to write the imported store's event rows again, on a clone of it, by COPY alone. */
export function importFloorSeconds(env: NodeJS.ProcessEnv, workDir: string): Promise<number> {
  return env.DATABASE_URL
    ? postgresFloorSeconds(env.DATABASE_URL, workDir)
    : embeddedFloorSeconds(join(env.DATA_DIR ?? 'data', 'pgdata'), workDir);
}

/** PostgreSQL: a database made from the imported one as its template; COPY over the wire. */
async function postgresFloorSeconds(databaseUrl: string, workDir: string): Promise<number> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  const floor = `${database}_floor`;
  const dir = mkdtempSync(join(workDir, 'floor-'));
  const file = (table: string) => join(dir, `${table}.copy`);
  const admin = await connect(url, 'postgres');
  try {
    const source = await connect(url);
    try {
      for (const table of EVENT_TABLES) {
        await pipeline(
          source.query(copyTo(`COPY ${table} TO STDOUT WITH (FORMAT binary)`)),
          createWriteStream(file(table)),
        );
      }
    } finally {
      await source.end();
    }
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(floor)} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${quoteIdent(floor)} TEMPLATE ${quoteIdent(database)}`);
    const target = await connect(url, floor);
    try {
      // view_pages and notifications refer to views and visits: emptied with them.
      await target.query(`TRUNCATE ${EVENT_TABLES.join(', ')} CASCADE`);
      // What the clone left to write back to disk is written now, not while the floor is timed
      // (a role that may not run CHECKPOINT measures without it).
      await target.query('CHECKPOINT').catch(() => undefined);
      const started = performance.now();
      await target.query('BEGIN');
      for (const table of EVENT_TABLES) {
        await pipeline(
          createReadStream(file(table)),
          target.query(copyFrom(`COPY ${table} FROM STDIN WITH (FORMAT binary)`)),
        );
      }
      await target.query('COMMIT');
      return (performance.now() - started) / 1000;
    } finally {
      await target.end();
    }
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(floor)} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The embedded store: a copy of the imported folder, opened by PGlite in this thread with the
 * store's own settings (no other process may hold the folder meanwhile); each table's rows
 * read out and written back as one blob, as the import's own COPY sends them.
 */
async function embeddedFloorSeconds(pgdata: string, workDir: string): Promise<number> {
  const dir = mkdtempSync(join(workDir, 'floor-'));
  try {
    cpSync(pgdata, join(dir, 'pgdata'), { recursive: true });
    const db = new PGlite({ fs: new NodeFS(join(dir, 'pgdata')), postgresqlconf: EMBEDDED_SETTINGS });
    try {
      await db.waitReady;
      const rows = new Map<string, Blob>();
      for (const table of EVENT_TABLES) {
        const { blob } = await db.query(`COPY ${table} TO '/dev/blob' WITH (FORMAT binary)`);
        if (blob) rows.set(table, blob);
      }
      await db.exec(`TRUNCATE ${EVENT_TABLES.join(', ')} CASCADE; CHECKPOINT`);
      const started = performance.now();
      await db.transaction(async (tx) => {
        for (const [table, blob] of rows)
          await tx.query(`COPY ${table} FROM '/dev/blob' WITH (FORMAT binary)`, [], { blob });
      });
      return (performance.now() - started) / 1000;
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function connect(url: URL, database?: string): Promise<pg.Client> {
  const address = new URL(url);
  if (database) address.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: address.toString() });
  await client.connect();
  return client;
}

import { inject } from 'vitest';
import type { Database, Queryable } from '../db/database.ts';
import { openEmbedded } from '../db/embedded.ts';
import { openPostgres } from '../db/postgres.ts';
import { createDatabase, databaseUrl, dropDatabase, runDatabaseName } from './templates.ts';

/**
 * In-memory embedded stores that earlier suites of this process closed, each emptied back to
 * the migrated template: the next suite takes one instead of booting another thread (about
 * half a second of CPU each, for some fifty suites a run). A suite sees a store exactly as a
 * new one: the template's schema, no rows, no session settings, no listener of an earlier
 * suite. A store whose schema a suite changed is closed instead, and each is closed after
 * LENDS_PER_STORE suites, so no thread carries a long history of statements it prepared.
 */
const idle: { db: Database; lends: number }[] = [];
const LENDS_PER_STORE = 5;

/** The template's tables (but the migrations' own) and its schema's fingerprint. */
let template: { tables: string[]; shape: string } | undefined;

export async function lentEmbeddedStore(): Promise<Database> {
  const reused = idle.pop();
  const store = reused ?? {
    // Tests share two cores with a browser and several servers: a statement may wait its turn
    // far longer than in service, and a timeout would restart an in-memory store empty.
    db: await openEmbedded(undefined, {
      statementTimeoutMs: 60_000,
      loadDataDir: inject('templates').embeddedMigrated,
    }),
    lends: 0,
  };
  template ??= { tables: await tablesOf(store.db), shape: await shapeOf(store.db) };
  store.lends++;
  return lend(store);
}

/** The store as one suite sees it: closing it empties it for the next, or closes it. */
function lend(store: { db: Database; lends: number }): Database {
  const { db } = store;
  const stops: (() => Promise<void>)[] = [];
  let returned = false;
  /** The store's own call, refused once the suite has closed its store. */
  const open =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (returned) throw new Error('the store is closed');
      return call(...args);
    };
  return {
    kind: db.kind,
    notifiesBeforeCommitReturns: db.notifiesBeforeCommitReturns,
    query: open(db.query) as Database['query'],
    exec: open(db.exec),
    copyFrom: open(db.copyFrom),
    transaction: open(db.transaction) as Database['transaction'],
    poolStats: () => db.poolStats(),
    ping: open(db.ping),
    listen: open(async (channel: string, handler: (payload: string) => void) => {
      const stop = await db.listen(channel, handler);
      stops.push(stop);
      return stop;
    }),
    async close() {
      if (returned) return;
      returned = true;
      for (const stop of stops) await stop();
      if (store.lends < LENDS_PER_STORE && (await emptied(db))) idle.push(store);
      else await db.close();
    },
  };
}

/**
 * Back to the template: any transaction left open rolled back, every table written to
 * truncated, session settings and advisory locks dropped. False (the store is then closed)
 * when the schema is no longer the template's or any step fails.
 */
async function emptied(db: Database): Promise<boolean> {
  if (!template) return false;
  try {
    await db.exec('ROLLBACK');
    if (!(await truncated(db, template))) return false;
    await db.exec('RESET ALL; SELECT pg_advisory_unlock_all()');
    return true;
  } catch {
    return false;
  }
}

/** Every table written to truncated; false, with nothing done, when the schema is not the template's. */
async function truncated(db: Queryable, like: { tables: string[]; shape: string }): Promise<boolean> {
  if ((await shapeOf(db)) !== like.shape) return false;
  const written = await db.query<{ name: string }>(
    `SELECT name FROM unnest($1::text[]) AS name WHERE pg_relation_size(name::regclass) > 0`,
    [like.tables],
  );
  const names = written.map((row) => row.name);
  if (names.length > 0) await db.exec(`TRUNCATE ${names.join(', ')} CASCADE`);
  return true;
}

/**
 * PostgreSQL databases that earlier suites of this process closed, each emptied back to the
 * template the same way: the next suite takes one instead of creating another from the
 * template and dropping it after, which made and removed some 500 files each time (the
 * server's file work was about a twentieth of a run's CPU). A database is dropped instead
 * when any connection to it is still open once its suite has closed its own, when its
 * schema was changed, or after LENDS_PER_STORE suites. Those left at the end of the run are
 * dropped by the global setup's teardown (their names start with `runDatabasePrefix`).
 */
const idleDatabases: { name: string; lends: number }[] = [];
let postgresTemplate: { tables: string[]; shape: string } | undefined;

/** A database of the run's template, as new, and the way to give it back once its connections are closed. */
export async function lentPostgresDatabase(): Promise<{ name: string; giveBack(): Promise<void> }> {
  const server = inject('postgresUrl');
  const taken = idleDatabases.pop() ?? { name: await createFromTemplate(server), lends: 0 };
  taken.lends++;
  return {
    name: taken.name,
    async giveBack() {
      if (taken.lends < LENDS_PER_STORE && (await emptiedDatabase(server, taken.name))) {
        idleDatabases.push(taken);
      } else {
        await dropDatabase(server, taken.name);
      }
    },
  };
}

async function createFromTemplate(server: string): Promise<string> {
  const name = runDatabaseName(inject('runId'));
  await createDatabase(server, name, inject('templates').postgresTemplate);
  if (!postgresTemplate) {
    await onDatabase(server, name, async (db) => {
      postgresTemplate = { tables: await tablesOf(db), shape: await shapeOf(db) };
    });
  }
  return name;
}

/** Back to the template, over a connection of its own; false when that cannot be done alone. */
async function emptiedDatabase(server: string, name: string): Promise<boolean> {
  const like = postgresTemplate;
  if (!like) return false;
  try {
    return await onDatabase(server, name, async (db) => {
      // A connection just closed may still be leaving the server for a moment. This one's own
      // pool holds one connection, so every statement here runs on it.
      for (let tries = 0; ; tries++) {
        const [others] = await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid()`,
        );
        if (others?.n === 0) break;
        if (tries === 20) return false;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return truncated(db, like);
    });
  } catch {
    return false;
  }
}

async function onDatabase<T>(server: string, name: string, work: (db: Queryable) => Promise<T>): Promise<T> {
  const db = await openPostgres({ connectionString: databaseUrl(server, name), maxConnections: 1 });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** The template's tables but the migrations' own. */
async function tablesOf(db: Queryable): Promise<string[]> {
  const rows = await db.query<{ name: string }>(
    `SELECT format('%I', tablename) AS name FROM pg_tables
      WHERE schemaname = 'public' AND tablename <> 'schema_migrations' ORDER BY 1`,
  );
  return rows.map((row) => row.name);
}

/** A fingerprint of the schema: relations, columns, constraints, functions and triggers. */
async function shapeOf(db: Queryable): Promise<string> {
  const [row] = await db.query<{ shape: string }>(
    `SELECT md5(string_agg(item, ',' ORDER BY item)) AS shape FROM (
       SELECT c.relkind::text || ' ' || n.nspname || '.' || c.relname AS item
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
       UNION ALL
       SELECT 'a ' || a.attrelid::regclass || '.' || a.attname || ' ' || a.atttypid::text || ' ' || a.attnotnull::text
              || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
         FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = 'public' AND a.attnum > 0 AND NOT a.attisdropped
       UNION ALL
       SELECT 'c ' || conrelid::regclass || '.' || conname || ' ' || pg_get_constraintdef(oid)
         FROM pg_constraint WHERE connamespace = 'public'::regnamespace
       UNION ALL
       SELECT 'f ' || p.oid::regprocedure || ' ' || md5(p.prosrc)
         FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
       UNION ALL
       SELECT 't ' || tgrelid::regclass || '.' || tgname || ' ' || tgenabled::text FROM pg_trigger WHERE NOT tgisinternal
     ) items`,
  );
  return row?.shape ?? '';
}

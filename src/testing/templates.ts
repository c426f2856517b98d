import { createHash, type Hash, randomBytes } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import pg from 'pg';
import { openEmbedded } from '../db/embedded.ts';
import { loadMigrations, type Migration, migrate } from '../db/migrate.ts';
import { openPostgres, quoteIdent } from '../db/postgres.ts';
import { cacheFolder, PROJECT_ROOT } from './cache.ts';

/** What every test store is cloned from, made by the global setup when a run needs them. */
export interface StoreTemplates {
  /** A fresh embedded data folder (a cluster, no migration): copied for each served store. */
  embeddedEmpty: string;
  /** The migrated embedded store as a tarball: each in-memory test store starts from it. */
  embeddedMigrated: string;
  /** The same as a data folder: copied for a served store that starts migrated. */
  embeddedMigratedFolder: string;
  /** The migrated PostgreSQL database each test database is created from ('' without PostgreSQL). */
  postgresTemplate: string;
}

/**
 * The templates: booting a PGlite cluster costs seconds and migrating each store again for
 * every describe block most of the suite's time, where a copy costs a few milliseconds. Each
 * is named by what it is made from and kept for later runs: the embedded ones under
 * node_modules/.cache, the PostgreSQL one as a database of the server.
 */
export async function makeTemplates(postgresUrl: string): Promise<StoreTemplates> {
  const [embedded, postgresTemplate] = await Promise.all([
    embeddedTemplates(),
    postgresUrl ? postgresTemplateOf(postgresUrl) : '',
  ]);
  return { ...embedded, postgresTemplate };
}

/**
 * The embedded templates for these migrations, this PGlite and this way of opening a store,
 * in a folder named by all three. Made in a folder of its own and renamed once complete, so a
 * run stopped half-way never leaves one that looks whole; those of earlier migrations go.
 */
async function embeddedTemplates(): Promise<Omit<StoreTemplates, 'postgresTemplate'>> {
  const hash = migrationsHash(loadMigrations());
  const pglite = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  hash.update(readFileSync(join(pglite, '..', 'package.json')));
  for (const source of ['src/db/pglite-thread.ts', 'src/db/embedded.ts', 'src/testing/templates.ts']) {
    hash.update(readFileSync(join(PROJECT_ROOT, source)));
  }
  const cache = cacheFolder('dealroom-templates');
  const dir = join(cache, hash.digest('hex').slice(0, 16));
  const made = {
    embeddedEmpty: join(dir, 'empty'),
    embeddedMigrated: join(dir, 'migrated.tar'),
    embeddedMigratedFolder: join(dir, 'migrated'),
  };
  if (existsSync(made.embeddedMigrated)) return made;

  const building = mkdtempSync(join(cache, 'building-'));
  try {
    const empty = join(building, 'empty');
    await (await openEmbedded(empty)).close();
    const migratedDir = join(building, 'migrated');
    cpSync(empty, migratedDir, { recursive: true });
    const db = await openEmbedded(migratedDir);
    await migrate(db);
    await db.close();
    const dumper = new PGlite({ fs: new NodeFS(migratedDir) });
    await dumper.waitReady;
    const tarball = await dumper.dumpDataDir('none');
    await dumper.close();
    writeFileSync(join(building, 'migrated.tar'), Buffer.from(await tarball.arrayBuffer()));
    for (const old of readdirSync(cache)) {
      if (!old.startsWith('building-')) rmSync(join(cache, old), { recursive: true, force: true });
    }
    renameSync(building, dir);
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    // Another run made the same templates meanwhile.
    if (!existsSync(made.embeddedMigrated)) throw err;
  }
  return made;
}

/**
 * A database holding every migration, named by the migrations' text so a later run with the
 * same migrations reuses it. Built under another name and renamed once complete, so a run
 * stopped half-way never leaves a template that looks whole.
 */
async function postgresTemplateOf(url: string): Promise<string> {
  const migrations = loadMigrations();
  const name = `dealroom_template_${migrationsHash(migrations).digest('hex').slice(0, 16)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return name;
    const building = `dealroom_building_${randomBytes(6).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${quoteIdent(building)}`);
    const db = await openPostgres({ connectionString: databaseUrl(url, building), maxConnections: 2 });
    try {
      await migrate(db, migrations);
    } finally {
      await db.close();
    }
    await admin
      .query(`ALTER DATABASE ${quoteIdent(building)} RENAME TO ${quoteIdent(name)}`)
      .catch(async (err) => {
        // Another run made the same template meanwhile.
        await admin.query(dropDatabaseStatement(building));
        if ((err as { code?: string }).code !== '42P04') throw err;
      });
    return name;
  } finally {
    await admin.end();
  }
}

/** A hash begun with the migrations' names and text: what a template is named by. */
function migrationsHash(migrations: Migration[]): Hash {
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.name}\n${m.sql}\n`);
  return hash;
}

/** The server's address with another database. */
export function databaseUrl(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

/** What the names of a run's own test databases start with: dropped at the run's end. */
export const runDatabasePrefix = (runId: string) => `test_${runId}_`;

/** A new name for one of the run's test databases: its prefix, a `kind` tag, and random letters. */
export const runDatabaseName = (runId: string, kind = '') =>
  `${runDatabasePrefix(runId)}${kind}${randomBytes(6).toString('hex')}`;

/** The statement that drops a database, closing its connections first; none is no error. */
export const dropDatabaseStatement = (name: string) =>
  `DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`;

/** Creates a database over a connection of its own: empty, or a copy of `template`. */
export const createDatabase = (server: string, name: string, template?: string) =>
  adminQuery(
    server,
    `CREATE DATABASE ${quoteIdent(name)}${template ? ` TEMPLATE ${quoteIdent(template)}` : ''}`,
  );

/** Drops a database over a connection of its own. */
export const dropDatabase = (server: string, name: string) => adminQuery(server, dropDatabaseStatement(name));

/** One statement on the server's own database, over a connection of its own (CREATE and DROP DATABASE). */
async function adminQuery(server: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

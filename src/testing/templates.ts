import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';
import pg from 'pg';
import { openEmbedded } from '../db/embedded.ts';
import { loadMigrations, migrate } from '../db/migrate.ts';
import { openPostgres, quoteIdent } from '../db/postgres.ts';

/** What every test store is cloned from, made once per run by the global setup. */
export interface StoreTemplates {
  /** A fresh embedded data folder (a cluster, no migration): copied for each served store. */
  embeddedEmpty: string;
  /** The migrated embedded store as a tarball: each in-memory test store starts from it. */
  embeddedMigrated: string;
  /** The migrated PostgreSQL database each test database is created from ('' without PostgreSQL). */
  postgresTemplate: string;
}

/**
 * Makes the templates: booting a PGlite cluster costs seconds and migrating each store again
 * for every describe block most of the suite's time, where a copy costs a few milliseconds.
 * Returns them, and how to remove the embedded ones after the run.
 */
export async function makeTemplates(
  postgresUrl: string,
): Promise<{ templates: StoreTemplates; remove: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), 'dealroom-templates-'));
  const embeddedEmpty = join(dir, 'empty');
  await (await openEmbedded(embeddedEmpty)).close();
  const migratedDir = join(dir, 'migrated');
  cpSync(embeddedEmpty, migratedDir, { recursive: true });
  const db = await openEmbedded(migratedDir);
  await migrate(db);
  await db.close();
  const dumper = new PGlite({ fs: new NodeFS(migratedDir) });
  await dumper.waitReady;
  const tarball = await dumper.dumpDataDir('none');
  await dumper.close();
  const embeddedMigrated = join(dir, 'migrated.tar');
  writeFileSync(embeddedMigrated, Buffer.from(await tarball.arrayBuffer()));
  rmSync(migratedDir, { recursive: true, force: true });
  const postgresTemplate = postgresUrl ? await postgresTemplateOf(postgresUrl) : '';
  return {
    templates: { embeddedEmpty, embeddedMigrated, postgresTemplate },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A database holding every migration, named by the migrations' text so a later run with the
 * same migrations reuses it. Built under another name and renamed once complete, so a run
 * stopped half-way never leaves a template that looks whole.
 */
async function postgresTemplateOf(url: string): Promise<string> {
  const migrations = loadMigrations();
  const hash = createHash('sha256');
  for (const m of migrations) hash.update(`${m.name}\n${m.sql}\n`);
  const name = `dealroom_template_${hash.digest('hex').slice(0, 16)}`;
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
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(building)} WITH (FORCE)`);
        if ((err as { code?: string }).code !== '42P04') throw err;
      });
    return name;
  } finally {
    await admin.end();
  }
}

/** The server's address with another database. */
export function databaseUrl(url: string, database: string): string {
  const next = new URL(url);
  next.pathname = `/${database}`;
  return next.toString();
}

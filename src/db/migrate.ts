import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.ts';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../migrations/', import.meta.url));
// Any constant works; it only has to be the same in every process that migrates.
const MIGRATION_LOCK_KEY = 7_231_004;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((file) => /^\d+_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({
      version: Number.parseInt(file, 10),
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    }));
}

/**
 * Applies the migrations not yet recorded, each in its own transaction, under an advisory
 * lock so that several processes starting at once migrate exactly once. Returns the names
 * applied. A failing migration rolls back and throws. The ones already recorded are read in
 * one statement first: a start on an up-to-date store locks nothing.
 */
export async function migrate(db: Database, migrations = loadMigrations()): Promise<string[]> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
  )`);
  const recorded = new Set(
    (await db.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (recorded.has(migration.version)) continue;
    // Recorded meanwhile by another process: checked again under the lock.
    const didApply = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.length > 0) return false;
      await tx.exec(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
    if (didApply) applied.push(migration.name);
  }
  return applied;
}

/** Each migration, applied (with when) or not: `dealroom migrate status`. */
export async function migrationStatus(
  db: Database,
  migrations = loadMigrations(),
): Promise<{ name: string; appliedAt: Date | null }[]> {
  const applied = new Map<number, Date>();
  const [table] = await db.query<{ exists: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS exists",
  );
  if (table?.exists) {
    const rows = await db.query<{ version: number; applied_at: Date }>(
      'SELECT version, applied_at FROM schema_migrations',
    );
    for (const row of rows) applied.set(row.version, row.applied_at);
  }
  return migrations.map((m) => ({ name: m.name, appliedAt: applied.get(m.version) ?? null }));
}

/** The migrations `migrate` would apply now, by name. */
export async function pendingMigrations(db: Database, migrations = loadMigrations()): Promise<string[]> {
  return (await migrationStatus(db, migrations)).filter((m) => m.appliedAt === null).map((m) => m.name);
}

/** The schema is behind the code: nothing runs on it until `dealroom migrate` has. */
export class SchemaBehindError extends Error {
  constructor(readonly pending: string[]) {
    super(
      `the database schema is behind this version: ${pending.length} migration${pending.length === 1 ? '' : 's'} to apply (${pending.join(', ')}). Back the database up, then run: dealroom migrate`,
    );
    this.name = 'SchemaBehindError';
  }
}

/** Refuses a schema with migrations still to apply (every command but `migrate` checks). */
export async function requireCurrentSchema(db: Database): Promise<void> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) throw new SchemaBehindError(pending);
}

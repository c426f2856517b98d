/**
 * The migrated, empty embedded store that `npm run build` leaves in dist/store/, from which a
 * service starting on a data folder with no store yet begins (open.ts), instead of creating
 * the store's files and running every migration: about 4 s of a first `npm start` on a
 * loaded machine. Named by what it was made from (this PGlite, every migration's text), so a
 * service only ever starts from the one its own migrations made; without it (a service run
 * from source, or a build that has not made it), the store is created as before.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEmbedded } from './embedded.ts';
import { loadMigrations, type Migration, migrate } from './migrate.ts';

/** dist/store/ from src/db, dist/db and dist/bundle alike: each sits two folders below the project. */
const TEMPLATES = fileURLToPath(new URL('../../dist/store/', import.meta.url));

/** The template's file name for these migrations and this PGlite. */
export function templateName(migrations: readonly Migration[]): string {
  const pglite = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  const hash = createHash('sha256').update(readFileSync(join(pglite, '..', 'package.json')));
  for (const migration of migrations) hash.update(`\0${migration.name}\0${migration.sql}`);
  return `migrated-${hash.digest('hex').slice(0, 16)}.tar.gz`;
}

/** The build's template for these migrations, if the build made it. */
export function builtTemplate(migrations: readonly Migration[] = loadMigrations()): string | undefined {
  const file = join(TEMPLATES, templateName(migrations));
  return existsSync(file) ? file : undefined;
}

/**
 * Makes the template for the current migrations unless it is there already (a build that
 * changed no migration makes none), and removes those of earlier migrations. Returns its path.
 */
export async function makeStoreTemplate(
  migrations: readonly Migration[] = loadMigrations(),
): Promise<string> {
  const file = join(TEMPLATES, templateName(migrations));
  if (existsSync(file)) return file;
  // The build alone reads a store's files directly; a service never loads PGlite here.
  const { PGlite } = await import('@electric-sql/pglite');
  const { NodeFS } = await import('@electric-sql/pglite/nodefs');
  // Made beside it, under dist/, and written once whole.
  const building = mkdtempSync(join(TEMPLATES, '..', 'store-building-'));
  try {
    const dataDir = join(building, 'pgdata');
    const db = await openEmbedded(dataDir, { statementTimeoutMs: 120_000 });
    try {
      await migrate(db, [...migrations]);
    } finally {
      await db.close();
    }
    const dumper = new PGlite({ fs: new NodeFS(dataDir) });
    await dumper.waitReady;
    const tarball = await dumper.dumpDataDir('gzip');
    await dumper.close();
    rmSync(TEMPLATES, { recursive: true, force: true });
    mkdirSync(TEMPLATES, { recursive: true });
    writeFileSync(file, Buffer.from(await tarball.arrayBuffer()));
    return file;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
}

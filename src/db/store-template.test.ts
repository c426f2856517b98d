import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../testing/temp.ts';
import { loadMigrations, migrate } from './migrate.ts';
import { openStore } from './open.ts';
import { builtTemplate, templateName } from './store-template.ts';

describe("a new embedded store begins from the build's migrated template", () => {
  it('is named by every migration it holds, so a service only starts from its own', () => {
    const migrations = loadMigrations();
    const name = templateName(migrations);
    expect(name).toMatch(/^migrated-[0-9a-f]{16}\.tar\.gz$/);
    expect(templateName(migrations.slice(0, -1))).not.toBe(name);
    const changed = migrations.map((m, i) => (i === 0 ? { ...m, sql: `${m.sql}\n-- changed` } : m));
    expect(templateName(changed)).not.toBe(name);
    // `npm test` builds first, and the build makes it.
    expect(builtTemplate(migrations), 'run `npm run build` first').toBeDefined();
  });

  it('opens a folder with no store as the migrated store, its files its owner’s alone; a store already there is kept', async () => {
    const dataDir = tempDir('template');
    const opened = await openStore({ databaseUrl: undefined, dataDir }, undefined, { fromTemplate: true });
    try {
      const versions = await opened.db.query<{ version: number }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(versions.map((v) => v.version)).toEqual(loadMigrations().map((m) => m.version));
      expect(await migrate(opened.db)).toEqual([]);
      await opened.db.query(
        `INSERT INTO teams (id, name) VALUES ('00000000-0000-4000-8000-00000000a001', 'Kept')`,
      );
    } finally {
      await opened.db.close();
    }
    const pgdata = join(dataDir, 'pgdata');
    for (const entry of ['', 'PG_VERSION', 'base', 'global']) {
      expect(statSync(join(pgdata, entry)).mode & 0o077, entry || 'pgdata').toBe(0);
    }
    expect(readdirSync(join(pgdata, 'base')).length).toBeGreaterThan(0);

    const again = await openStore({ databaseUrl: undefined, dataDir }, undefined, { fromTemplate: true });
    try {
      expect(await again.db.query('SELECT name FROM teams')).toEqual([{ name: 'Kept' }]);
    } finally {
      await again.db.close();
    }
  });
});

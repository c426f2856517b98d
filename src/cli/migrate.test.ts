import { describe, expect, it } from 'vitest';
import { dealroom } from '../testing/process.ts';
import { freshStores, storeKinds } from '../testing/stores.ts';

const MIGRATIONS = [
  '001_initial',
  '002_daily_rollups',
  '003_kept_figures',
  '004_write_side',
  '005_webhook_delivery',
  '006_previous_secrets',
  '007_event_retention',
  '008_deleted_room_events',
  '009_link_page',
  '010_dashboard',
  '011_document_versions',
  '012_webhook_test_sends',
  '013_counted_attempts',
  '014_gate_steps',
  '015_notifications',
  '016_room_slots',
  '017_figures_version',
  '018_link_page_changes',
  '019_dashboard_visit_indexes',
  '020_link_visits_by_time',
  '021_link_downloads_by_time',
];

describe.each(storeKinds())('explicit migrations (%s store)', { timeout: 120_000 }, (kind) => {
  const freshEnv = freshStores(kind);

  it('migrates only when told: other commands refuse a schema that is behind and name the command to run', async () => {
    const env = await freshEnv();
    const refused = await dealroom(['teams', 'list'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `the database schema is behind this version: ${MIGRATIONS.length} migrations to apply (${MIGRATIONS.join(', ')}). Back the database up, then run: dealroom migrate`,
    );

    const dry = await dealroom(['migrate', '--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, stdout: `would apply ${MIGRATIONS.join(', ')}\n` });
    const before = await dealroom(['migrate', 'status'], env);
    expect(before.stdout.trim().split('\n')).toEqual(MIGRATIONS.map((name) => `${name}\tpending`));

    expect((await dealroom(['migrate'], env)).stdout).toBe(`applied ${MIGRATIONS.join(', ')}\n`);
    const after = await dealroom(['migrate', 'status'], env);
    for (const line of after.stdout.trim().split('\n'))
      expect(line).toMatch(/^\d{3}_\w+\tapplied \d{4}-\d{2}-\d{2}T/);
    expect((await dealroom(['migrate', '--dry-run'], env)).stdout).toBe('the schema is up to date\n');
    expect((await dealroom(['teams', 'list'], env)).code).toBe(0);
    expect((await dealroom(['migrate', 'sideways'], env)).code).toBe(1);
  });

  it.runIf(kind === 'postgres')(
    'serve on PostgreSQL refuses a schema that is behind unless MIGRATE_ON_START',
    async () => {
      const env = await freshEnv();
      const served = await dealroom(['serve', '--port', '0', '--no-worker'], env);
      expect(served.code).toBe(1);
      expect(served.stderr).toContain('Back the database up, then run: dealroom migrate');
    },
  );
});

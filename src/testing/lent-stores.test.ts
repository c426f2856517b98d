import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import { managementClient } from './management.ts';
import { openTestStore, postgresUrl, storeKinds } from './stores.ts';

/**
 * The in-memory stores a fork lends from suite to suite: each suite must find its store as a
 * new one, whatever the suite before it left behind.
 */
describe('lent embedded test stores', () => {
  it('come back empty, with default settings, whatever the suite before wrote or changed', async () => {
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    for (let suite = 0; suite < 7; suite++) {
      const db = await openTestStore('embedded');
      expect(await db.query('SELECT count(*)::int AS n FROM teams')).toEqual([{ n: 0 }]);
      expect(await db.query('SELECT count(*)::int AS n FROM deal_rooms')).toEqual([{ n: 0 }]);
      expect(await db.query("SELECT to_regclass('left_behind') AS t")).toEqual([{ t: null }]);
      expect(await db.query("SELECT current_setting('TimeZone') AS zone")).not.toEqual([
        { zone: 'Asia/Tokyo' },
      ]);
      let heard = 0;
      await db.listen('dealroom_activity', () => heard++);

      const admin = await managementClient(db, clock, createMetrics());
      const team = await admin.post('/teams', { name: `Suite ${suite}` });
      expect(team.status).toBe(201);
      await admin.post(`/teams/${team.body.data.id}/deal-rooms`, { name: 'Room' });
      await admin.app.close();
      await db.exec("SET TIME ZONE 'Asia/Tokyo'");
      // One suite changes the schema: its store must not be lent again.
      if (suite === 2) await db.exec('CREATE TABLE left_behind (a int)');
      // One leaves a transaction open.
      if (suite === 4) await db.exec('BEGIN; INSERT INTO teams (id, name) VALUES (gen_random_uuid(), $$x$$)');
      await db.close();
      await expect(db.query('SELECT 1')).rejects.toThrow('the store is closed');
      // A listener of a closed store hears nothing of the next suite's writes.
      const next = await openTestStore('embedded');
      await next.exec("NOTIFY dealroom_activity, 'later'");
      await next.close();
      expect(heard).toBe(0);
    }
  });
});

/**
 * The PostgreSQL databases a fork lends from suite to suite: emptied as the embedded stores
 * are, and dropped instead when a connection outlives its suite or the schema was changed.
 */
describe.runIf(storeKinds().includes('postgres'))('lent PostgreSQL test databases', () => {
  const exists = async (url: string) => {
    const admin = new pg.Client({ connectionString: postgresUrl() });
    await admin.connect();
    try {
      const name = new URL(url).pathname.slice(1);
      const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      return rows.length === 1;
    } finally {
      await admin.end();
    }
  };

  it('come back empty, or are dropped when a connection outlives the suite or the schema changed', async () => {
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    const urls: string[] = [];
    for (let suite = 0; suite < 5; suite++) {
      const db = await openTestStore('postgres');
      const url = db.url as string;
      urls.push(url);
      expect(await db.query('SELECT count(*)::int AS n FROM teams')).toEqual([{ n: 0 }]);
      expect(await db.query('SELECT count(*)::int AS n FROM deal_rooms')).toEqual([{ n: 0 }]);
      expect(await db.query("SELECT to_regclass('left_behind') AS t")).toEqual([{ t: null }]);

      const admin = await managementClient(db, clock, createMetrics());
      const team = await admin.post('/teams', { name: `Suite ${suite}` });
      expect(team.status).toBe(201);
      await admin.post(`/teams/${team.body.data.id}/deal-rooms`, { name: 'Room' });
      await admin.app.close();
      // One suite changes the schema, one leaves a connection of its own open.
      if (suite === 1) await db.exec('CREATE TABLE left_behind (a int)');
      const straggler = suite === 3 ? new pg.Client({ connectionString: url }) : undefined;
      // Its database is dropped under it, which ends it.
      straggler?.on('error', () => undefined);
      await straggler?.connect();
      await db.close();
      await db.close();
      if (suite === 1 || suite === 3) expect(await exists(url)).toBe(false);
      await straggler?.end().catch(() => undefined);
    }
    // Databases came back to later suites, but never the changed one or the held one.
    expect(new Set(urls).size).toBeLessThan(urls.length);
    expect(urls.slice(2)).not.toContain(urls[1]);
    expect(urls.slice(4)).not.toContain(urls[3]);
  });
});

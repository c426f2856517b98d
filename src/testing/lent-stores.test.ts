import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import { managementClient } from './management.ts';
import { openTestStore } from './stores.ts';

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

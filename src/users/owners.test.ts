import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createTeam } from '../teams/commands.ts';
import { openTestStore, storeKinds, type TestStore } from '../testing/stores.ts';
import { changeRole, inviteUser, removeUser } from './commands.ts';

describe.each(storeKinds())('a team keeps an owner (%s store)', (kind) => {
  let db: TestStore;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const ctx = () => ({ db, clock, appUrl: '' });
  beforeAll(async () => {
    // Long enough a lock wait for the held rows below.
    db = await openTestStore(kind, { lockTimeoutMs: 30_000 });
  });
  afterAll(async () => {
    await db?.close();
  });

  const twoOwners = async (name: string) => {
    const team = await createTeam(ctx(), { name });
    const a = await inviteUser(ctx(), { teamId: team.id, email: `a@${name}.example`, role: 'owner' });
    const b = await inviteUser(ctx(), { teamId: team.id, email: `b@${name}.example`, role: 'owner' });
    const owners = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM users WHERE team_id = $1 AND role = 'owner'",
          [team.id],
        )
      )[0]?.n;
    return { a: a.userId, b: b.userId, owners };
  };

  /**
   * Runs both changes at the same moment: on PostgreSQL another connection holds both users'
   * rows until both changes wait for them, then lets go, so each locks its user and counts the
   * owners before the other commits (the embedded store runs one transaction at a time).
   */
  const atOnce = async <T>(
    ids: string[],
    changes: () => Promise<T>[],
  ): Promise<PromiseSettledResult<T>[]> => {
    if (!db.url) return Promise.allSettled(changes());
    const holder = new pg.Client({ connectionString: db.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM users WHERE id = ANY ($1::uuid[]) FOR UPDATE', [ids]);
      const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const settled = Promise.allSettled(changes());
      // Both wait for the rows once PostgreSQL shows two sessions blocked by the holder.
      for (;;) {
        // Inside a transaction, the activity view is a snapshot unless cleared.
        await holder.query('SELECT pg_stat_clear_snapshot()');
        const { rows } = await holder.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))',
          [pid],
        );
        if ((rows[0]?.n ?? 0) >= 2) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await holder.query('COMMIT');
      return await settled;
    } finally {
      await holder.end();
    }
  };

  it('when two owners demote each other at the same moment: one change is made, the other refused', async () => {
    for (let round = 0; round < 3; round++) {
      const { a, b, owners } = await twoOwners(`demote${round}`);
      const outcomes = await atOnce([a, b], () => [
        changeRole(ctx(), b, 'member'),
        changeRole(ctx(), a, 'member'),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      expect(outcomes.find((o) => o.status === 'rejected')).toMatchObject({
        reason: { code: 'conflict' },
      });
      expect(await owners()).toBe(1);
    }
  });

  it('when two owners remove each other at the same moment: one stays', async () => {
    const { a, b, owners } = await twoOwners('remove');
    const outcomes = await atOnce([a, b], () => [removeUser(ctx(), b), removeUser(ctx(), a)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect(await owners()).toBe(1);
  });
});

import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { testApp } from '../testing/app.ts';
import { ADMIN_TOKEN, managementClient, recordedEvents } from '../testing/management.ts';
import { expectFiguresMatch } from '../testing/recompute.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';

const NOW = '2026-05-20T12:00:00.000Z';
const DAY = 86_400_000;

/**
 * Tracking writes arriving all at once over real HTTP: the figures they leave must equal a
 * recomputation from the raw events, and one new viewer seen twice at once is one viewer.
 */
describe.each(storeKinds())('concurrent tracking writes over HTTP (%s store)', (kind) => {
  const clock = new ManualClock(NOW);
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let api: Awaited<ReturnType<typeof testApp>>;
  let base: string;
  beforeAll(async () => {
    db = await openTestStore(kind, { maxConnections: 8, maxWaiting: 2000, maxWaitMs: 60_000 });
    admin = await managementClient(db, clock);
    api = await testApp(db, clock);
    await admin.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(admin.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await admin?.app.close();
    await api?.app.close();
    await db?.close();
  });

  const post = async (path: string, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { data: { id: string } } };
  };

  it('500 at once on one room leave every figure exact; one new viewer twice at once is one viewer', async () => {
    const teamId = (await post('/teams', { name: 'Busy' })).body.data.id;
    const key = (await post(`/teams/${teamId}/keys`, {})).body.data as unknown as { key: string };
    const roomId = (await post(`/teams/${teamId}/deal-rooms`, { name: 'Hot room' })).body.data.id;
    const documents: string[] = [];
    for (const name of ['Deck', 'Model', 'Contracts']) {
      documents.push(
        (await post(`/deal-rooms/${roomId}/documents`, { name, status: 'published' })).body.data.id,
      );
    }
    const links: string[] = [];
    for (const name of ['Investors', 'Advisors']) {
      links.push((await post(`/deal-rooms/${roomId}/links`, { name })).body.data.id);
    }

    // Known from a visit, but without a view yet: the first views race on an existing row.
    await post(`/links/${links[0]}/visits`, { viewer: { email: 'twice@example.com' } });
    const viewer = (i: number) =>
      i % 7 === 0
        ? { visitorId: `anon-${i % 5}` }
        : { email: `person${i % 40}@example.com`, name: `P${i % 3}` };
    const when = (i: number) =>
      new Date(Date.parse(NOW) - (i % 9) * DAY - (i % 13) * 3_600_000).toISOString();
    const writes = Array.from({ length: 500 }, (_, i) => {
      const link = links[i % 2] as string;
      const documentId = documents[i % 3] as string;
      if (i < 20) return post(`/links/${link}/views`, { documentId, viewer: { email: 'twice@example.com' } });
      if (i % 5 === 0) return post(`/links/${link}/visits`, { viewer: viewer(i), at: when(i) });
      if (i % 11 === 0)
        return post(`/links/${link}/downloads`, { documentId, viewer: viewer(i), at: when(i) });
      return post(`/links/${link}/views`, { documentId, viewer: viewer(i), startedAt: when(i) }).then(
        async (started) =>
          i % 2 === 0
            ? post(`/views/${started.body.data.id}/complete`, { durationSeconds: i % 300 })
            : started,
      );
    });
    const answers = await Promise.all(writes);
    expect(answers.filter((a) => a.status >= 300)).toEqual([]);

    await expectFiguresMatch({ db, clock, api }, key.key, teamId, [roomId]);
    const twice = await db.query('SELECT id FROM viewers WHERE deal_room_id = $1 AND identity = $2', [
      roomId,
      'email:twice@example.com',
    ]);
    expect(twice).toHaveLength(1);
    const created = (await recordedEvents(db)).filter((e) => e.type === 'viewer.created');
    const withViews = await db.query('SELECT 1 FROM viewers WHERE deal_room_id = $1 AND total_views > 0', [
      roomId,
    ]);
    expect(created).toHaveLength(withViews.length);
    expect(created.filter((e) => (e.data as { email: string }).email === 'twice@example.com')).toHaveLength(
      1,
    );
  });
});

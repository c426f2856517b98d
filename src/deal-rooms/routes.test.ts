import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { testApp } from '../testing/app.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';

describe.each(storeKinds())('deal rooms (%s store)', (kind) => {
  let db: Database;
  let api: Awaited<ReturnType<typeof testApp>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');

  beforeAll(async () => {
    db = await openTestStore(kind);
    api = await testApp(db, clock);
  });
  afterAll(async () => {
    await api.app.close();
    await db.close();
  });

  it('lists only the caller team rooms, most recently updated first, ties by id', async () => {
    const { teamId, key } = await teamWithKey(db, clock);
    const other = await teamWithKey(db, clock);
    const older = make.room(teamId, { name: 'Older', updatedAt: '2026-02-01T00:00:00.000Z' });
    const newer = make.room(teamId, { name: 'Newer', updatedAt: '2026-03-01T00:00:00.000Z' });
    const tieA = make.room(teamId, {
      id: '00000000-0000-4000-8000-00000000000a',
      updatedAt: '2026-01-15T00:00:00.000Z',
    });
    const tieB = make.room(teamId, {
      id: '00000000-0000-4000-8000-00000000000b',
      updatedAt: '2026-01-15T00:00:00.000Z',
    });
    const foreign = make.room(other.teamId, { updatedAt: '2026-04-01T00:00:00.000Z' });
    await load(db, clock, { dealRooms: [tieB, older, foreign, newer, tieA] });

    const res = await api.get('/v1/deal-rooms', key);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([newer.id, older.id, tieA.id, tieB.id]);
    expect(res.body.meta).toEqual({
      apiVersion: '2026-04-01',
      pagination: { page: 1, perPage: 20, total: 4, totalPages: 1 },
    });
  });

  it('renders every field of a room with its computed counts', async () => {
    const { teamId, key } = await teamWithKey(db, clock);
    const room = make.room(teamId, { name: 'Falcon', description: 'desc', status: 'archived' });
    const published = make.document(room.id as string);
    const draft = make.document(room.id as string, { status: 'draft' });
    const link = make.link(room.id as string);
    const disabled = make.link(room.id as string, { enabled: false });
    const ann = { email: 'Ann@Example.com ', name: 'Ann' };
    await load(db, clock, {
      dealRooms: [room],
      documents: [published, draft],
      links: [link, disabled],
      views: [
        make.view(link.id as string, published.id as string, ann, '2026-05-01T10:00:00Z', 10),
        make.view(
          link.id as string,
          draft.id as string,
          { email: 'ann@example.com' },
          '2026-05-02T10:00:00Z',
          15,
        ),
        make.view(
          link.id as string,
          published.id as string,
          { visitorId: 'v-1' },
          '2026-05-03T10:00:00Z',
          20,
        ),
      ],
    });

    // Every field of the list, exactly; the detail adds the two engagement figures.
    const listed = {
      id: room.id,
      name: 'Falcon',
      description: 'desc',
      status: 'archived',
      documentCount: 1,
      linkCount: 2,
      totalViews: 3,
      createdAt: '2026-01-10T09:00:00.000Z',
      updatedAt: '2026-01-10T09:00:00.000Z',
    };
    const list = await api.get('/v1/deal-rooms?status=archived', key);
    expect(list.body.data).toEqual([listed]);

    const one = await api.get(`/v1/deal-rooms/${room.id}`, key);
    expect(one.status).toBe(200);
    expect(one.body).toEqual({
      data: { ...listed, uniqueViewers: 2, avgViewDurationSeconds: 15 },
      meta: { apiVersion: '2026-04-01' },
    });
  });

  it('filters by status', async () => {
    const { teamId, key } = await teamWithKey(db, clock);
    const active = make.room(teamId, { status: 'active' });
    const archived = make.room(teamId, { status: 'archived' });
    await load(db, clock, { dealRooms: [active, archived] });
    const res = await api.get('/v1/deal-rooms?status=active', key);
    expect(res.body.data.map((r: { id: string }) => r.id)).toEqual([active.id]);
    expect(res.body.meta.pagination.total).toBe(1);
  });

  it('answers 404 for another team room, an unknown id and a malformed id', async () => {
    const { key } = await teamWithKey(db, clock);
    const other = await teamWithKey(db, clock);
    const foreign = make.room(other.teamId);
    await load(db, clock, { dealRooms: [foreign] });
    for (const id of [foreign.id, '4b0c0f52-3a6e-4c51-9d8e-2f2f8f0a1b2c', 'not-a-uuid', "1' OR '1'='1"]) {
      const res = await api.get(`/v1/deal-rooms/${encodeURIComponent(String(id))}`, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Deal room not found', code: 'not_found' });
    }
  });
});

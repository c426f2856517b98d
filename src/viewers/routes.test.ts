import { describe, expect, it } from 'vitest';
import { load, make, roomWithKey, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';

describe.each(storeKinds())('viewers (%s store)', (kind) => {
  const s = useApi(kind);

  it('aggregates one person across links and email spellings, with every field', async () => {
    const { key, room, roomId } = await roomWithKey(s.db, s.clock);
    const doc1 = make.document(roomId);
    const doc2 = make.document(roomId, { status: 'draft' });
    const linkA = make.link(roomId, { name: 'Link A' });
    const linkB = make.link(roomId, { name: 'Link B' });
    const [a, b, d1, d2] = [linkA.id, linkB.id, doc1.id, doc2.id] as string[];
    await load(s.db, s.clock, {
      dealRooms: [room],
      documents: [doc1, doc2],
      links: [linkA, linkB],
      visits: [make.visit(a!, { email: 'only-visited@x.co' }, '2026-05-01T00:00:00Z')],
      views: [
        make.view(a!, d1!, { email: 'Ann@Example.COM', name: 'Ann E.' }, '2026-05-02T10:00:00.000Z', 30),
        make.view(
          b!,
          d2!,
          { email: '  ann@example.com ', name: 'Ann Example' },
          '2026-05-04T10:00:00.000Z',
          45,
        ),
        make.view(a!, d1!, { email: 'ANN@example.com' }, '2026-05-03T10:00:00.000Z', 5),
        make.view(a!, d1!, { email: 'ann@example.com', name: '' }, '2026-05-05T10:00:00.000Z', 0),
        make.view(b!, d1!, { visitorId: 'anon-7', name: '' }, '2026-05-01T08:00:00.000Z', 12),
      ],
    });

    const res = await s.api.get(`/v1/deal-rooms/${roomId}/viewers`, key);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: expect.any(String),
        email: 'ann@example.com',
        name: 'Ann Example',
        firstViewedAt: '2026-05-02T10:00:00.000Z',
        lastViewedAt: '2026-05-05T10:00:00.000Z',
        totalViews: 4,
        totalDurationSeconds: 80,
        documentsViewed: 2,
        linkName: 'Link A',
      },
      {
        id: expect.any(String),
        email: '',
        name: '',
        firstViewedAt: '2026-05-01T08:00:00.000Z',
        lastViewedAt: '2026-05-01T08:00:00.000Z',
        totalViews: 1,
        totalDurationSeconds: 12,
        documentsViewed: 1,
        linkName: 'Link B',
      },
    ]);
    expect(res.body.meta.pagination.total).toBe(2);
    expect((await s.api.get(`/v1/deal-rooms/${roomId}`, key)).body.data.uniqueViewers).toBe(2);
  });

  it('orders by latest view, ties by id, and keeps figures right across imports', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const doc = make.document(room.id as string);
    const link = make.link(room.id as string);
    const [l, d] = [link.id, doc.id] as string[];
    await load(s.db, s.clock, {
      dealRooms: [room],
      documents: [doc],
      links: [link],
      views: ['x', 'y', 'z'].map((v, i) =>
        make.view(l!, d!, { visitorId: v }, `2026-05-0${i === 2 ? 1 : 3}T00:00:00.000Z`),
      ),
    });
    // A second import adds a later view for the earliest viewer.
    await load(s.db, s.clock, {
      views: [make.view(l!, d!, { visitorId: 'z', name: 'Zed' }, '2026-05-09T00:00:00.000Z', 7)],
    });
    const res = await s.api.get(`/v1/deal-rooms/${room.id}/viewers`, key);
    const rows = res.body.data as { id: string; name: string; totalViews: number }[];
    expect(rows[0]).toMatchObject({ name: 'Zed', totalViews: 2 });
    expect(rows[1]!.id < rows[2]!.id).toBe(true);
    const page2 = await s.api.get(`/v1/deal-rooms/${room.id}/viewers?per_page=2&page=2`, key);
    expect(page2.body.data.map((v: { id: string }) => v.id)).toEqual([rows[2]!.id]);
  });
});

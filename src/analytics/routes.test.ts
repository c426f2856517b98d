import { describe, expect, it } from 'vitest';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';

type Series = { date: string; views: number }[];
const sum = (series: Series) => series.reduce((n, d) => n + d.views, 0);

describe.each(storeKinds())('analytics (%s store)', (kind) => {
  const s = useApi(kind); // now: 2026-05-20T12:00:00.000Z

  async function roomWith(over: { createdAt?: string } = {}) {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId, over);
    const doc = make.document(room.id as string, { name: 'Deck' });
    const link = make.link(room.id as string, { name: 'Main' });
    await load(s.db, s.clock, { dealRooms: [room], documents: [doc], links: [link] });
    return { key, roomId: room.id as string, docId: doc.id as string, linkId: link.id as string };
  }

  it('counts from 00:00Z of the first day of each period, today included', async () => {
    const { key, roomId, docId, linkId } = await roomWith();
    const v = (at: string) => make.view(linkId, docId, { visitorId: at }, at, 10);
    await load(s.db, s.clock, {
      views: [
        v('2026-05-13T23:59:59.999Z'),
        v('2026-05-14T00:00:00.000Z'),
        v('2026-05-20T11:59:00.000Z'),
        v('2026-04-20T23:59:59.999Z'),
        v('2026-04-21T00:00:00.000Z'),
        v('2026-02-19T23:59:59.999Z'),
        v('2026-02-20T00:00:00.000Z'),
      ],
    });
    const expected = {
      '7d': [2, '2026-05-14', 7],
      '30d': [4, '2026-04-21', 30],
      '90d': [6, '2026-02-20', 90],
    } as const;
    for (const [period, [views, firstDate, days]] of Object.entries(expected)) {
      const res = await s.api.get(`/v1/deal-rooms/${roomId}/analytics?period=${period}`, key);
      expect(res.status).toBe(200);
      const data = res.body.data;
      expect(data.period).toBe(period);
      expect(data.totalViews).toBe(views);
      expect(data.viewsOverTime).toHaveLength(days);
      expect(data.viewsOverTime[0].date).toBe(firstDate);
      expect(data.viewsOverTime.at(-1).date).toBe('2026-05-20');
      expect(sum(data.viewsOverTime)).toBe(views);
    }
    const week = (await s.api.get(`/v1/deal-rooms/${roomId}/analytics?period=7d`, key)).body.data
      .viewsOverTime;
    expect(week).toEqual([
      { date: '2026-05-14', views: 1 },
      { date: '2026-05-15', views: 0 },
      { date: '2026-05-16', views: 0 },
      { date: '2026-05-17', views: 0 },
      { date: '2026-05-18', views: 0 },
      { date: '2026-05-19', views: 0 },
      { date: '2026-05-20', views: 1 },
    ]);
  });

  it('defaults to 30d and renders the whole object', async () => {
    const { key, roomId, docId, linkId } = await roomWith();
    await load(s.db, s.clock, {
      visits: [make.visit(linkId, { email: 'a@x.co' }, '2026-05-18T09:00:00Z')],
      views: [
        make.view(linkId, docId, { email: 'a@x.co' }, '2026-05-18T09:00:00Z', 1),
        make.view(linkId, docId, { email: 'A@X.CO' }, '2026-05-19T09:00:00Z', 2),
      ],
      downloads: [make.download(linkId, docId, { email: 'a@x.co' }, '2026-05-19T09:05:00Z')],
    });
    const res = await s.api.get(`/v1/deal-rooms/${roomId}/analytics`, key);
    expect(res.body.meta).toEqual({ apiVersion: '2026-04-01' });
    const { viewsOverTime, ...rest } = res.body.data;
    expect(rest).toEqual({
      dealRoomId: roomId,
      period: '30d',
      totalViews: 2,
      uniqueViewers: 1,
      avgViewDurationSeconds: 2,
      totalDownloads: 1,
      topDocuments: [{ documentId: docId, name: 'Deck', views: 2, avgDurationSeconds: 2 }],
      topLinks: [{ linkId, name: 'Main', clicks: 1 }],
    });
    expect(viewsOverTime).toHaveLength(30);
  });

  it('starts "all" on the earlier of the creation day and the first view day', async () => {
    const created = await roomWith({ createdAt: '2026-05-10T18:00:00.000Z' });
    const none = (await s.api.get(`/v1/deal-rooms/${created.roomId}/analytics?period=all`, created.key)).body
      .data;
    expect(none.viewsOverTime[0]).toEqual({ date: '2026-05-10', views: 0 });
    expect(none.viewsOverTime).toHaveLength(11);
    expect(none).toMatchObject({
      totalViews: 0,
      uniqueViewers: 0,
      avgViewDurationSeconds: 0,
      totalDownloads: 0,
      topDocuments: [],
      topLinks: [],
    });

    await load(s.db, s.clock, {
      views: [make.view(created.linkId, created.docId, { visitorId: 'early' }, '2026-05-08T23:00:00Z', 3)],
    });
    const all = (await s.api.get(`/v1/deal-rooms/${created.roomId}/analytics?period=all`, created.key)).body
      .data;
    expect(all.viewsOverTime[0]).toEqual({ date: '2026-05-08', views: 1 });
    expect(all.viewsOverTime).toHaveLength(13);
    const detail = (await s.api.get(`/v1/deal-rooms/${created.roomId}`, created.key)).body.data;
    expect([detail.totalViews, detail.uniqueViewers, detail.avgViewDurationSeconds]).toEqual([
      all.totalViews,
      all.uniqueViewers,
      all.avgViewDurationSeconds,
    ]);
  });

  it('ranks at most 10 documents by views, then name by code point, then id; unpublished ones count', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const link = make.link(room.id as string);
    const names = ['b', 'B', 'a', 'é', 'z', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    const docs = names.map((name, i) =>
      make.document(room.id as string, { name, status: i === 0 ? 'archived' : 'published' }),
    );
    const views = docs.flatMap((doc, i) =>
      Array.from({ length: i === 0 ? 3 : i === 4 ? 3 : 1 }, (_, k) =>
        make.view(link.id as string, doc.id as string, { visitorId: `v${k}` }, '2026-05-19T00:00:00Z', k + 1),
      ),
    );
    await load(s.db, s.clock, { dealRooms: [room], documents: docs, links: [link], views });
    const top = (await s.api.get(`/v1/deal-rooms/${room.id}/analytics`, key)).body.data.topDocuments;
    expect(top).toHaveLength(10);
    expect(top.map((d: { name: string }) => d.name)).toEqual([
      'b',
      'z',
      'B',
      'a',
      'c',
      'd',
      'e',
      'f',
      'g',
      'h',
    ]);
    expect(top[0]).toEqual({ documentId: docs[0]!.id, name: 'b', views: 3, avgDurationSeconds: 2 });
  });

  it('ranks at most 10 links by clicks in the period, then name, then id', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const links = Array.from({ length: 12 }, (_, i) =>
      make.link(room.id as string, { name: `L${String(i).padStart(2, '0')}` }),
    );
    const visits = links.flatMap((link, i) =>
      Array.from({ length: i === 11 ? 5 : 1 }, () =>
        make.visit(link.id as string, { visitorId: 'v' }, '2026-05-19T00:00:00Z'),
      ),
    );
    visits.push(make.visit(links[0]!.id as string, { visitorId: 'old' }, '2026-01-19T00:00:00Z'));
    await load(s.db, s.clock, { dealRooms: [room], links, visits });
    const data = (await s.api.get(`/v1/deal-rooms/${room.id}/analytics?period=7d`, key)).body.data;
    expect(data.topLinks.map((l: { name: string; clicks: number }) => `${l.name}:${l.clicks}`)).toEqual([
      'L11:5',
      'L00:1',
      'L01:1',
      'L02:1',
      'L03:1',
      'L04:1',
      'L05:1',
      'L06:1',
      'L07:1',
      'L08:1',
    ]);
  });

  it('rounds mean durations half up', async () => {
    const { key, roomId, docId, linkId } = await roomWith();
    const v = (d: number) => make.view(linkId, docId, { visitorId: 'r' }, '2026-05-19T00:00:00Z', d);
    await load(s.db, s.clock, { views: [v(1), v(2)] });
    const data = (await s.api.get(`/v1/deal-rooms/${roomId}/analytics`, key)).body.data;
    expect(data.avgViewDurationSeconds).toBe(2);
    expect(data.topDocuments[0].avgDurationSeconds).toBe(2);
    await load(s.db, s.clock, { views: [v(1)] }); // 4 / 3 = 1.33
    expect(
      (await s.api.get(`/v1/deal-rooms/${roomId}/analytics`, key)).body.data.avgViewDurationSeconds,
    ).toBe(1);
  });

  it('puts a view stamped minutes past midnight into today, keeping the series sum', async () => {
    const { key, roomId, docId, linkId } = await roomWith();
    s.clock.set('2026-05-20T23:58:00.000Z');
    try {
      await load(s.db, s.clock, {
        views: [make.view(linkId, docId, { visitorId: 'soon' }, '2026-05-21T00:02:00.000Z')],
      });
      const data = (await s.api.get(`/v1/deal-rooms/${roomId}/analytics?period=7d`, key)).body.data;
      expect(data.totalViews).toBe(1);
      expect(data.viewsOverTime.at(-1)).toEqual({ date: '2026-05-20', views: 1 });
    } finally {
      s.clock.set('2026-05-20T12:00:00.000Z');
    }
  });
});

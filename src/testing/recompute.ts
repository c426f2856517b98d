import { expect } from 'vitest';
import { periodDays } from '../analytics/period.ts';
import type { Clock } from '../core/clock.ts';
import { pageWindow } from '../core/envelope.ts';
import { isoDay, roundedMean } from '../core/time.ts';
import type { Database } from '../db/database.ts';
import { listViewers } from '../viewers/repo.ts';
import type { testApp } from './app.ts';

/**
 * Every figure of every read endpoint and period, compared with a plain recomputation in
 * TypeScript from the raw event rows: the check behind the property test of the delta
 * module and the concurrency tests of the write side.
 */

const DAY = 86_400_000;

interface ViewRow {
  id: string;
  deal_room_id: string;
  document_id: string;
  link_id: string;
  viewer_id: string;
  viewer_name: string;
  started_at: Date;
  duration_seconds: number;
}

export async function expectFiguresMatch(
  s: {
    db: Database;
    clock: Clock;
    api: Awaited<ReturnType<typeof testApp>>;
    /** A second process's read API on the same store: its kept analytics must follow every write too. */
    other?: Awaited<ReturnType<typeof testApp>>;
  },
  key: string,
  teamId: string,
  roomIds: string[],
) {
  const now = s.clock.now();
  const views = await s.db.query<ViewRow>(
    'SELECT * FROM views WHERE deal_room_id = ANY($1::uuid[]) AND NOT internal',
    [roomIds],
  );
  const visits = await s.db.query<{ deal_room_id: string; link_id: string; at: Date }>(
    'SELECT deal_room_id, link_id, at FROM visits WHERE deal_room_id = ANY($1::uuid[]) AND NOT internal',
    [roomIds],
  );
  const downloads = await s.db.query<{ deal_room_id: string; at: Date }>(
    'SELECT deal_room_id, at FROM downloads WHERE deal_room_id = ANY($1::uuid[]) AND NOT internal',
    [roomIds],
  );
  const viewers = await s.db.query<{ id: string; email: string }>(
    'SELECT id, email FROM viewers WHERE deal_room_id = ANY($1::uuid[])',
    [roomIds],
  );
  const documents = await s.db.query<{ id: string; deal_room_id: string; name: string; status: string }>(
    'SELECT id, deal_room_id, name, status FROM documents WHERE deal_room_id = ANY($1::uuid[])',
    [roomIds],
  );
  const links = await s.db.query<{ id: string; deal_room_id: string; name: string }>(
    'SELECT id, deal_room_id, name FROM links WHERE deal_room_id = ANY($1::uuid[])',
    [roomIds],
  );
  const rooms = await s.db.query<{ id: string; created_at: Date }>(
    'SELECT id, created_at FROM deal_rooms WHERE team_id = $1',
    [teamId],
  );
  await expectSlotsMatch(s.db, roomIds, views, downloads, visits);

  const later = (a: ViewRow, b: ViewRow) =>
    a.started_at.getTime() - b.started_at.getTime() || (a.id < b.id ? -1 : 1);
  const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

  const list = (await s.api.get('/v1/deal-rooms?per_page=100', key)).body;
  expect(list.meta.pagination.total).toBe(rooms.length);

  for (const room of rooms) {
    const roomViews = views.filter((v) => v.deal_room_id === room.id);
    const byViewer = new Map<string, ViewRow[]>();
    for (const v of roomViews) byViewer.set(v.viewer_id, [...(byViewer.get(v.viewer_id) ?? []), v]);
    const duration = roomViews.reduce((sum, v) => sum + v.duration_seconds, 0);
    const published = documents.filter((d) => d.deal_room_id === room.id && d.status === 'published').length;
    const roomLinks = links.filter((l) => l.deal_room_id === room.id);

    const detail = (await s.api.get(`/v1/deal-rooms/${room.id}`, key)).body.data;
    const expectedRoom = {
      documentCount: published,
      linkCount: roomLinks.length,
      totalViews: roomViews.length,
      uniqueViewers: byViewer.size,
      avgViewDurationSeconds: roundedMean(duration, roomViews.length),
    };
    expect(detail).toMatchObject(expectedRoom);
    const listed = list.data.find((r: { id: string }) => r.id === room.id);
    expect(listed).toMatchObject({
      documentCount: published,
      linkCount: roomLinks.length,
      totalViews: roomViews.length,
    });

    const linkPage = (await s.api.get(`/v1/deal-rooms/${room.id}/links?per_page=100`, key)).body;
    for (const link of linkPage.data) {
      expect(link.totalClicks).toBe(visits.filter((v) => v.link_id === link.id).length);
    }
    expect((await s.api.get(`/v1/deal-rooms/${room.id}/documents`, key)).body.meta.pagination.total).toBe(
      published,
    );

    // Every viewer, paged three at a time so deep pages are walked too.
    const expectedViewers = [...byViewer.entries()]
      .map(([id, own]) => {
        const sorted = [...own].sort(later);
        const latest = sorted[sorted.length - 1] as ViewRow;
        const named = sorted.filter((v) => v.viewer_name !== '');
        return {
          id,
          email: viewers.find((w) => w.id === id)?.email,
          name: named[named.length - 1]?.viewer_name ?? '',
          firstViewedAt: sorted[0]?.started_at.toISOString(),
          lastViewedAt: latest.started_at.toISOString(),
          totalViews: own.length,
          totalDurationSeconds: own.reduce((sum, v) => sum + v.duration_seconds, 0),
          documentsViewed: new Set(own.map((v) => v.document_id)).size,
          linkName: links.find((l) => l.id === latest.link_id)?.name,
        };
      })
      .sort((a, b) => byCodePoint(b.lastViewedAt, a.lastViewedAt) || byCodePoint(a.id, b.id));
    const pages = Math.ceil(expectedViewers.length / 3) + 1;
    const seen: unknown[] = [];
    for (let page = 1; page <= pages; page++) {
      const body = (await s.api.get(`/v1/deal-rooms/${room.id}/viewers?per_page=3&page=${page}`, key)).body;
      expect(body.meta.pagination.total).toBe(expectedViewers.length);
      seen.push(...body.data);
      // The deep-page path (walking days) must find the same page as the index scan.
      const deep = await listViewers(s.db, teamId, room.id, pageWindow({ page, perPage: 3 }), -1);
      expect(deep.filter((row) => row.id !== null).map((row) => row.id)).toEqual(
        body.data.map((v: { id: string }) => v.id),
      );
    }
    expect(seen).toEqual(expectedViewers);

    const firstView = roomViews.length
      ? new Date(Math.min(...roomViews.map((v) => v.started_at.getTime())))
      : null;
    for (const period of ['7d', '30d', '90d', 'all'] as const) {
      const bounds = periodDays(period, now, { createdAt: room.created_at, firstViewAt: firstView });
      const since = bounds.firstDay.getTime();
      const inPeriod = roomViews.filter((v) => v.started_at.getTime() >= since);
      const periodDuration = inPeriod.reduce((sum, v) => sum + v.duration_seconds, 0);
      const perDocument = new Map<string, { views: number; duration: number }>();
      for (const v of inPeriod) {
        const d = perDocument.get(v.document_id) ?? { views: 0, duration: 0 };
        perDocument.set(v.document_id, { views: d.views + 1, duration: d.duration + v.duration_seconds });
      }
      const clicks = new Map<string, number>();
      for (const v of visits) {
        if (v.deal_room_id === room.id && v.at.getTime() >= since)
          clicks.set(v.link_id, (clicks.get(v.link_id) ?? 0) + 1);
      }
      const nameOf = (id: string, rows: { id: string; name: string }[]) =>
        rows.find((r) => r.id === id)?.name ?? '';
      const perDay = new Map<string, number>();
      for (const v of inPeriod) {
        const day = isoDay(new Date(Math.min(v.started_at.getTime(), bounds.today.getTime())));
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
      }
      const expected = {
        totalViews: inPeriod.length,
        uniqueViewers: new Set(inPeriod.map((v) => v.viewer_id)).size,
        avgViewDurationSeconds: roundedMean(periodDuration, inPeriod.length),
        totalDownloads: downloads.filter((d) => d.deal_room_id === room.id && d.at.getTime() >= since).length,
        topDocuments: [...perDocument.entries()]
          .map(([id, d]) => ({
            documentId: id,
            name: nameOf(id, documents),
            views: d.views,
            avgDurationSeconds: roundedMean(d.duration, d.views),
          }))
          .sort(
            (a, b) =>
              b.views - a.views || byCodePoint(a.name, b.name) || byCodePoint(a.documentId, b.documentId),
          )
          .slice(0, 10),
        topLinks: [...clicks.entries()]
          .map(([id, n]) => ({ linkId: id, name: nameOf(id, links), clicks: n }))
          .sort(
            (a, b) => b.clicks - a.clicks || byCodePoint(a.name, b.name) || byCodePoint(a.linkId, b.linkId),
          )
          .slice(0, 10),
        viewsOverTime: Array.from({ length: bounds.days }, (_, i) => {
          const date = isoDay(new Date(since + i * DAY));
          return { date, views: perDay.get(date) ?? 0 };
        }),
      };
      const analytics = await s.api.get(`/v1/deal-rooms/${room.id}/analytics?period=${period}`, key);
      const data = analytics.body.data;
      expect(data, `${period}`).toMatchObject(expected);
      if (s.other) {
        const there = await s.other.get(`/v1/deal-rooms/${room.id}/analytics?period=${period}`, key);
        expect(there.raw, `${period}, the other process`).toBe(analytics.raw);
        expect(there.headers.etag).toBe(analytics.headers.etag);
      }
      if (period === 'all') {
        expect([data.totalViews, data.uniqueViewers, data.avgViewDurationSeconds]).toEqual([
          expectedRoom.totalViews,
          expectedRoom.uniqueViewers,
          expectedRoom.avgViewDurationSeconds,
        ]);
      }
    }
  }
}

const SLOT = 900_000;

/**
 * The 15-minute slots the dashboard counts team days from: every non-zero row of room_slots
 * equals a recomputation from the raw rows (views, their duration, downloads, and each
 * viewer's latest view), and no slot with events is missing.
 */
async function expectSlotsMatch(
  db: Database,
  roomIds: string[],
  views: readonly ViewRow[],
  downloads: readonly { deal_room_id: string; at: Date }[],
  visits: readonly { deal_room_id: string; at: Date }[],
) {
  const expected = new Map<
    string,
    { views: number; duration: number; downloads: number; latest: number; visits: number }
  >();
  const at = (room: string, when: Date) => {
    const key = `${room} ${Math.floor(when.getTime() / SLOT) * SLOT}`;
    const row = expected.get(key) ?? { views: 0, duration: 0, downloads: 0, latest: 0, visits: 0 };
    expected.set(key, row);
    return row;
  };
  const latest = new Map<string, ViewRow>();
  for (const v of views) {
    const row = at(v.deal_room_id, v.started_at);
    row.views += 1;
    row.duration += v.duration_seconds;
    const seen = latest.get(v.viewer_id);
    if (
      !seen ||
      seen.started_at < v.started_at ||
      (seen.started_at.getTime() === v.started_at.getTime() && seen.id < v.id)
    )
      latest.set(v.viewer_id, v);
  }
  for (const v of latest.values()) at(v.deal_room_id, v.started_at).latest += 1;
  for (const d of downloads) at(d.deal_room_id, d.at).downloads += 1;
  for (const v of visits) at(v.deal_room_id, v.at).visits += 1;

  const kept = await db.query<{
    deal_room_id: string;
    slot: Date;
    views: number;
    duration: number;
    downloads: number;
    latest: number;
    visits: number;
  }>(
    `SELECT deal_room_id, slot, views, duration_seconds::float8 AS duration, downloads, latest_viewers AS latest, visits
       FROM room_slots WHERE deal_room_id = ANY($1::uuid[])
        AND (views <> 0 OR duration_seconds <> 0 OR downloads <> 0 OR latest_viewers <> 0 OR visits <> 0)`,
    [roomIds],
  );
  const actual = new Map(
    kept.map((r) => [
      `${r.deal_room_id} ${r.slot.getTime()}`,
      { views: r.views, duration: r.duration, downloads: r.downloads, latest: r.latest, visits: r.visits },
    ]),
  );
  expect(Object.fromEntries(actual)).toEqual(Object.fromEntries(expected));
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { periodDays } from '../analytics/period.ts';
import type { Database } from '../db/database.ts';
import { pageWindow } from '../http/envelope.ts';
import { newId } from '../shared/ids.ts';
import { isoDay, roundedMean } from '../shared/time.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { listViewers } from '../viewers/repo.ts';
import { applyViewDuration, applyViewsStarted } from './deltas.ts';
import { type ViewFact, viewRows } from './rows.ts';

/**
 * Random histories (several imports, and live views started and completed one at a time
 * through the delta module) on both stores; after each, every figure of every endpoint and
 * period must equal a plain recomputation from the raw event rows, done here in TypeScript.
 */

const NOW = '2026-05-20T12:00:00.000Z';
const DAY = 86_400_000;

/** Instants that bunch around UTC midnights, across the periods' edges, up to 4 min ahead. */
const instant = fc
  .record({ daysAgo: fc.integer({ min: 0, max: 120 }), ms: fc.constantFrom(0, 1, DAY - 1, DAY / 2) })
  .map(({ daysAgo, ms }) => {
    const midnight = Math.floor(Date.parse(NOW) / DAY) * DAY;
    const latest = Date.parse(NOW) + 4 * 60_000;
    return new Date(Math.min(midnight - daysAgo * DAY + ms, latest)).toISOString();
  });

/** A small pool of people, spelled several ways, some anonymous; names sometimes given. */
const viewer = fc.oneof(
  fc.record({
    email: fc.constantFrom(
      'ann@example.com',
      ' Ann@Example.COM ',
      'bob@example.com',
      'BOB@example.com',
      'cy@example.com',
    ),
    name: fc.constantFrom('', '', 'Ann', 'Bob B.', 'Zoë'),
  }),
  fc.record({ visitorId: fc.constantFrom('v-1', 'v-2', 'v-3') }),
);

const event = fc.record({
  kind: fc.constantFrom('view', 'view', 'visit', 'download', 'liveView'),
  room: fc.nat(1),
  link: fc.nat(2),
  document: fc.nat(3),
  viewer,
  at: instant,
  duration: fc.integer({ min: 0, max: 900 }),
  completeWith: fc.option(fc.integer({ min: 0, max: 900 }), { nil: undefined }),
});

const history = fc.record({
  documentStatuses: fc.array(fc.constantFrom('published', 'published', 'draft', 'archived'), {
    minLength: 8,
    maxLength: 8,
  }),
  roomCreatedDaysAgo: fc.integer({ min: 0, max: 150 }),
  batches: fc.array(fc.array(event, { maxLength: 14 }), { minLength: 1, maxLength: 4 }),
});

type Raw = Record<string, unknown>;

describe.each(storeKinds())('kept figures equal a recomputation from raw events (%s store)', (kind) => {
  const s = useApi(kind, NOW);

  it('after any history of imports and live views', async () => {
    await fc.assert(
      fc.asyncProperty(history, async (h) => {
        const team = make.team();
        const { key } = await teamWithKey(s.db, s.clock, team);
        const created = new Date(Date.parse(NOW) - h.roomCreatedDaysAgo * DAY).toISOString();
        const rooms = [0, 1].map((i) =>
          make.room(team.id, { createdAt: created, status: i ? 'archived' : 'active' }),
        );
        const documents = rooms.flatMap((room, r) =>
          [0, 1, 2, 3].map((d) =>
            make.document(room.id, {
              name: `Doc ${d % 2}`,
              position: d,
              status: h.documentStatuses[r * 4 + d],
            }),
          ),
        );
        const links = rooms.flatMap((room) =>
          [0, 1, 2].map((l) => make.link(room.id, { name: `Link ${l % 2}` })),
        );
        await load(s.db, s.clock, { dealRooms: rooms, documents, links });

        for (const batch of h.batches) {
          const data: Record<string, Raw[]> = { visits: [], views: [], downloads: [] };
          const live: typeof batch = [];
          for (const e of batch) {
            const link = links[e.room * 3 + e.link] as Raw;
            const document = documents[e.room * 4 + e.document] as Raw;
            if (e.kind === 'visit') data.visits?.push(make.visit(link.id as string, e.viewer, e.at));
            if (e.kind === 'download')
              data.downloads?.push(make.download(link.id as string, document.id as string, e.viewer, e.at));
            if (e.kind === 'view')
              data.views?.push(
                make.view(link.id as string, document.id as string, e.viewer, e.at, e.duration),
              );
            if (e.kind === 'liveView') live.push(e);
          }
          await load(s.db, s.clock, data);
          for (const e of live) {
            const link = links[e.room * 3 + e.link] as Raw;
            const document = documents[e.room * 4 + e.document] as Raw;
            await liveView(s.db, {
              room: rooms[e.room]?.id as string,
              link: link.id as string,
              document: document.id as string,
              viewer: e.viewer,
              at: e.at,
              completeWith: e.completeWith,
            });
          }
          await expectFiguresMatch(
            s,
            key,
            team.id,
            rooms.map((r) => r.id),
          );
        }
      }),
      { numRuns: 12 },
    );
  });
});

/** What the write side will do for one tracked view: the row, then its deltas, in one transaction. */
async function liveView(
  db: Database,
  v: {
    room: string;
    link: string;
    document: string;
    viewer: Raw;
    at: string;
    completeWith: number | undefined;
  },
) {
  const identity =
    'email' in v.viewer
      ? `email:${String(v.viewer.email).trim().toLowerCase()}`
      : `visitor:${v.viewer.visitorId}`;
  const name = String(v.viewer.name ?? '').trim();
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO viewers (id, deal_room_id, identity, email, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (deal_room_id, identity) DO NOTHING`,
      [newId(), v.room, identity, identity.startsWith('email:') ? identity.slice(6) : '', v.at],
    );
    const [row] = await tx.query<{ id: string }>(
      'SELECT id FROM viewers WHERE deal_room_id = $1 AND identity = $2',
      [v.room, identity],
    );
    const view: ViewFact = {
      id: newId(),
      dealRoomId: v.room,
      documentId: v.document,
      linkId: v.link,
      viewerId: row?.id as string,
      viewerName: name,
      startedAt: new Date(v.at),
      durationSeconds: 0,
    };
    await tx.query(
      `INSERT INTO views (id, deal_room_id, document_id, link_id, viewer_id, viewer_name, started_at, duration_seconds)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 0)`,
      [
        view.id,
        view.dealRoomId,
        view.documentId,
        view.linkId,
        view.viewerId,
        view.viewerName,
        view.startedAt,
      ],
    );
    await applyViewsStarted(tx, viewRows([view]));
    if (v.completeWith !== undefined) {
      await tx.query('UPDATE views SET duration_seconds = $2, completed_at = $3 WHERE id = $1', [
        view.id,
        v.completeWith,
        view.startedAt,
      ]);
      await applyViewDuration(tx, view, v.completeWith);
    }
  });
}

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

async function expectFiguresMatch(
  s: ReturnType<typeof useApi>,
  key: string,
  teamId: string,
  roomIds: string[],
) {
  const now = s.clock.now();
  const views = await s.db.query<ViewRow>('SELECT * FROM views WHERE deal_room_id = ANY($1::uuid[])', [
    roomIds,
  ]);
  const visits = await s.db.query<{ deal_room_id: string; link_id: string; at: Date }>(
    'SELECT deal_room_id, link_id, at FROM visits WHERE deal_room_id = ANY($1::uuid[])',
    [roomIds],
  );
  const downloads = await s.db.query<{ deal_room_id: string; at: Date }>(
    'SELECT deal_room_id, at FROM downloads WHERE deal_room_id = ANY($1::uuid[])',
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
      const data = (await s.api.get(`/v1/deal-rooms/${room.id}/analytics?period=${period}`, key)).body.data;
      expect(data, `${period}`).toMatchObject(expected);
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

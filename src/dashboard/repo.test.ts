import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { load, make } from '../testing/fixtures.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { recordVisit } from '../tracking/commands.ts';
import { internalVisitors, recentActivity, refusedDownloads, viewerTimeline } from './activity-repo.ts';
import {
  documentVersions,
  linkVisitors,
  roomDocuments,
  roomLinks,
  roomViewers,
  roomZoneDays,
  teamDocument,
  teamLink,
  teamRoom,
  teamViewer,
} from './repo.ts';

describe.each(storeKinds())('the dashboard’s reads name the team (%s store)', (kind) => {
  let db: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const ours = make.team({ name: 'Ours' });
  const theirs = make.team({ name: 'Theirs' });
  const room = make.room(ours.id);
  const document = make.document(room.id);
  const link = make.link(room.id);
  const viewer = { email: 'reader@example.com', name: 'Reader' };
  let viewerId = '';

  beforeAll(async () => {
    db = await openTestStore(kind);
    await load(db, clock, {
      teams: [ours, theirs],
      dealRooms: [room],
      documents: [document],
      links: [link],
      visits: [make.visit(link.id, viewer, '2026-05-20T11:30:00.000Z')],
      views: [make.view(link.id, document.id, viewer, '2026-05-20T11:31:00.000Z')],
    });
    const [row] = await db.query<{ id: string }>('SELECT id FROM viewers WHERE deal_room_id = $1', [room.id]);
    viewerId = row?.id as string;
    // One of the team's own visits, and a refused download, so that every read has something to show.
    await db.query(
      `INSERT INTO visits (id, deal_room_id, link_id, viewer_id, at, verified, internal)
       VALUES ($1, $2, $3, $4, $5, false, true)`,
      [randomUUID(), room.id, link.id, viewerId, new Date('2026-05-20T11:40:00.000Z')],
    );
    await db.query(
      `INSERT INTO download_refusals (id, deal_room_id, document_id, link_id, viewer_id, at, internal)
       VALUES ($1, $2, $3, $4, $5, $6, false)`,
      [randomUUID(), room.id, document.id, link.id, viewerId, new Date('2026-05-20T11:45:00.000Z')],
    );
    await db.query(
      `INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks,
                                      page_count, pages_ready, uploaded_at)
       VALUES ($1, $2, 1, 'application/pdf', 100, 'x', 0, 3, 3, now())`,
      [randomUUID(), document.id],
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  it('shows a room and all that is in it to its team only: to another team, by any id, nothing', async () => {
    const since = new Date('2026-05-01T00:00:00.000Z');
    const reads = {
      room: (team: string) => teamRoom(db, team, room.id),
      document: (team: string) => teamDocument(db, team, document.id),
      link: (team: string) => teamLink(db, team, link.id),
      viewer: (team: string) => teamViewer(db, team, viewerId),
      days: async (team: string) =>
        (await roomZoneDays(db, team, room.id, [since])).filter((d) => d.views > 0 || d.visits > 0),
      documents: (team: string) => roomDocuments(db, team, room.id),
      versions: (team: string) => documentVersions(db, team, document.id),
      links: (team: string) => roomLinks(db, team, room.id),
      viewers: (team: string) => roomViewers(db, team, room.id, { q: '', limit: 10, offset: 0 }),
      visitors: (team: string) => linkVisitors(db, team, link.id, 10),
      timeline: (team: string) => viewerTimeline(db, team, viewerId, 10),
      roomFeed: (team: string) => recentActivity(db, { teamId: team, roomId: room.id }, since, 10),
      teamFeed: (team: string) => recentActivity(db, { teamId: team }, since, 10),
      internal: (team: string) => internalVisitors(db, team, room.id, 10),
      refused: (team: string) => refusedDownloads(db, team, room.id, since),
    };
    for (const [name, read] of Object.entries(reads)) {
      const shown = await read(ours.id);
      expect(Array.isArray(shown) ? shown.length : shown, `${name}, to its team`).toBeTruthy();
      const hidden = await read(theirs.id);
      expect(Array.isArray(hidden) ? hidden.length : hidden, `${name}, to another team`).toBeFalsy();
    }
  });
});

describe.each(storeKinds())('a room’s viewers on the dashboard (%s store)', (kind) => {
  let db: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const team = make.team();
  const room = make.room(team.id);
  const document = make.document(room.id);
  const link = make.link(room.id);
  const people = ['ann@buyer.example', 'bob@buyer.example', 'cy@buyer.example', 'di@buyer.example'];

  beforeAll(async () => {
    db = await openTestStore(kind);
    await load(db, clock, {
      teams: [team],
      dealRooms: [room],
      documents: [document],
      links: [link],
      // Each a minute later than the one before: di viewed last.
      visits: people.map((email, i) => make.visit(link.id, { email }, `2026-05-20T11:0${i}:00.000Z`)),
      views: people.map((email, i) =>
        make.view(link.id, document.id, { email }, `2026-05-20T11:0${i}:30.000Z`),
      ),
    });
    // bob and di proved their address with a code on one visit each.
    await db.query(
      `UPDATE visits s SET verified = true FROM viewers v
        WHERE v.id = s.viewer_id AND v.email IN ('bob@buyer.example', 'di@buyer.example')`,
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  it('lists them latest first, a page at a time, each marked verified only when a visit of theirs was', async () => {
    const page = async (offset: number) =>
      (await roomViewers(db, team.id, room.id, { q: '', limit: 2, offset })).map((v) => [
        v.email,
        v.verified,
      ]);
    expect(await page(0)).toEqual([
      ['di@buyer.example', true],
      ['cy@buyer.example', false],
    ]);
    expect(await page(2)).toEqual([
      ['bob@buyer.example', true],
      ['ann@buyer.example', false],
    ]);
    const found = await roomViewers(db, team.id, room.id, { q: 'BOB', limit: 10, offset: 0 });
    expect(found.map((v) => [v.email, v.verified])).toEqual([['bob@buyer.example', true]]);
  });
});

describe.each(storeKinds())('who came through a link, on its dashboard page (%s store)', (kind) => {
  let db: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const team = make.team();
  const room = make.room(team.id);
  const link = make.link(room.id);
  const other = make.link(room.id, { name: 'Other' });
  const at = (hhmm: string) => `2026-05-20T${hhmm}:00.000Z`;

  beforeAll(async () => {
    db = await openTestStore(kind);
    const visit = (email: string, hhmm: string, through = link) =>
      make.visit(through.id, { email }, at(hhmm));
    await load(db, clock, {
      teams: [team],
      dealRooms: [room],
      links: [link, other],
      visits: [
        visit('ann@buyer.example', '11:00'),
        visit('ann@buyer.example', '11:05'),
        visit('ann@buyer.example', '09:00'),
        visit('bob@buyer.example', '11:02'),
        // The same minute as Ann's latest, and twice.
        visit('cy@buyer.example', '11:05'),
        visit('cy@buyer.example', '11:05'),
        visit('di@buyer.example', '10:00'),
        // Before the team named its own domain: this visit is not marked internal, the later one is.
        visit('me@ours.example', '09:30'),
        // Through the other link only, and later than anyone: not this link's.
        visit('eve@buyer.example', '11:30', other),
        visit('bob@buyer.example', '11:40', other),
      ],
    });
    await db.query(`UPDATE teams SET internal_domains = '{@ours.example}' WHERE id = $1`, [team.id]);
    const ctx = { db, clock, appUrl: '' };
    await recordVisit(ctx, link.id, { viewer: { email: 'me@ours.example' }, at: new Date(at('10:30')) });
    await recordVisit(ctx, link.id, { viewer: { email: 'di@buyer.example' }, at: new Date(at('08:00')) });
  });
  afterAll(async () => {
    await db?.close();
  });

  it('lists the latest people first, each once with their visits through it, however many it shows', async () => {
    const visits = await db.query<{
      id: string;
      viewer_id: string;
      email: string;
      at: Date;
      internal: boolean;
    }>(
      `SELECT s.id, s.viewer_id, v.email, s.at, s.internal FROM visits s JOIN viewers v ON v.id = s.viewer_id
        WHERE s.link_id = $1`,
      [link.id],
    );
    // Each person's latest visit (the later id first among equal times), then their visits.
    const people = new Map<
      string,
      { id: string; email: string; latest: (typeof visits)[number]; visits: number; internal: boolean }
    >();
    for (const v of visits) {
      const p = people.get(v.viewer_id) ?? {
        id: v.viewer_id,
        email: v.email,
        latest: v,
        visits: 0,
        internal: false,
      };
      const later = v.at.getTime() - p.latest.at.getTime() || (v.id > p.latest.id ? 1 : -1);
      people.set(v.viewer_id, {
        ...p,
        latest: later > 0 ? v : p.latest,
        visits: p.visits + 1,
        internal: p.internal || v.internal,
      });
    }
    const byLatest = [...people.values()].sort(
      (a, b) => b.latest.at.getTime() - a.latest.at.getTime() || (b.latest.id > a.latest.id ? 1 : -1),
    );
    expect(byLatest.map((p) => p.email)).toEqual(
      expect.arrayContaining(['ann@buyer.example', 'cy@buyer.example', 'me@ours.example']),
    );
    expect(byLatest).toHaveLength(5);
    for (let limit = 1; limit <= 6; limit++) {
      const expected = byLatest
        .slice(0, limit)
        .sort((a, b) => b.latest.at.getTime() - a.latest.at.getTime() || (a.id < b.id ? -1 : 1))
        .map((p) => [p.email, p.visits, p.latest.at.toISOString(), p.internal]);
      const shown = (await linkVisitors(db, team.id, link.id, limit)).map((v) => [
        v.email,
        v.visits,
        v.last_at.toISOString(),
        v.internal,
      ]);
      expect(shown, `at most ${limit}`).toEqual(expected);
    }
    expect(await linkVisitors(db, team.id, link.id, 10)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'ann@buyer.example', visits: 3 }),
        expect.objectContaining({ email: 'di@buyer.example', visits: 2 }),
        expect.objectContaining({ email: 'me@ours.example', visits: 2, internal: true }),
      ]),
    );
  });
});

describe.each(storeKinds())('the live feeds (%s store)', (kind) => {
  let db: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const team = make.team();
  const room = make.room(team.id);
  const document = make.document(room.id);
  const teaser = make.link(room.id, { name: 'Teaser' });
  const full = make.link(room.id, { name: 'Full deck' });
  const since = new Date('2026-05-20T11:00:00.000Z');

  beforeAll(async () => {
    db = await openTestStore(kind);
    await load(db, clock, {
      teams: [team],
      dealRooms: [room],
      documents: [document],
      links: [teaser, full],
      visits: [
        // Before the feed's window: not shown.
        make.visit(teaser.id, { email: 'old@buyer.example' }, '2026-05-20T10:59:00.000Z'),
        make.visit(full.id, { email: 'reader@buyer.example' }, '2026-05-20T11:10:00.000Z'),
        // Came in and opened nothing: still a visit the team is shown.
        make.visit(teaser.id, { email: 'glance@buyer.example' }, '2026-05-20T11:20:00.000Z'),
      ],
      views: [
        make.view(full.id, document.id, { email: 'reader@buyer.example' }, '2026-05-20T11:11:00.000Z'),
        make.view(teaser.id, document.id, { email: 'old@buyer.example' }, '2026-05-20T10:59:30.000Z'),
      ],
      downloads: [
        // Opened before the window, downloaded in it (a document left open): shown.
        make.download(teaser.id, document.id, { email: 'old@buyer.example' }, '2026-05-20T11:25:00.000Z'),
        // Before the window: not shown.
        make.download(full.id, document.id, { email: 'reader@buyer.example' }, '2026-05-20T10:58:00.000Z'),
      ],
    });
    // One of the team's own visits, the latest: left out.
    await db.query(
      `INSERT INTO visits (id, deal_room_id, link_id, viewer_id, at, verified, internal)
       SELECT $1, $2, $3, id, $4, false, true FROM viewers WHERE deal_room_id = $2 AND email = $5`,
      [randomUUID(), room.id, teaser.id, new Date('2026-05-20T11:30:00.000Z'), 'glance@buyer.example'],
    );
  });
  afterAll(async () => {
    await db?.close();
  });

  it('show every visit and download in the window, whatever was opened before it, newest first, the team’s own left out', async () => {
    const expected = [
      { kind: 'download', who: 'old@buyer.example', what: document.name },
      { kind: 'visit', who: 'glance@buyer.example', what: 'Teaser' },
      { kind: 'view', who: 'reader@buyer.example', what: document.name },
      { kind: 'visit', who: 'reader@buyer.example', what: 'Full deck' },
    ];
    for (const roomId of [room.id, undefined]) {
      const feed = await recentActivity(db, { teamId: team.id, roomId }, since, 10);
      expect(feed.map(({ kind, who, what }) => ({ kind, who, what }))).toEqual(expected);
      expect(new Set(feed.map((row) => row.room))).toEqual(new Set([room.name]));
    }
    // At most `limit` entries, the newest.
    const [newest] = await recentActivity(db, { teamId: team.id }, since, 1);
    expect(newest).toMatchObject({ kind: 'download', who: 'old@buyer.example' });
  });
});

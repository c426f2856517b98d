import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { newId } from '../core/ids.ts';
import type { Database } from '../db/database.ts';
import { deleteDocument } from '../documents/commands.ts';
import { deleteLink } from '../links/commands.ts';
import { testApp } from '../testing/app.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { expectFiguresMatch } from '../testing/recompute.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { applyViewDurations, applyViewsStarted } from './deltas.ts';
import { type ViewFact, viewRows } from './rows.ts';

/**
 * Random histories (several imports, live views started and completed one at a time
 * through the delta module, then documents and links deleted with their events) on both
 * stores; after each, every figure of every endpoint and
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
  /** Documents and links deleted afterwards, their events taken off every figure. */
  removals: fc.array(fc.record({ kind: fc.constantFrom('document', 'link'), index: fc.nat(7) }), {
    maxLength: 3,
  }),
});

type Raw = Record<string, unknown>;

describe.each(storeKinds())('kept figures equal a recomputation from raw events (%s store)', (kind) => {
  const s = useApi(kind, NOW);
  // A second read API on the same store, as another process: each keeps analytics bodies of
  // its own, and both must follow every write at once.
  let other: Awaited<ReturnType<typeof testApp>> | undefined;
  beforeAll(async () => {
    other = await testApp(s.db, s.clock);
  });
  afterAll(async () => {
    await other?.app.close();
  });

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
            { ...s, other },
            key,
            team.id,
            rooms.map((r) => r.id),
          );
        }

        const ctx = { db: s.db, clock: s.clock, appUrl: '' };
        const gone = new Set<string>();
        for (const removal of h.removals) {
          const target =
            removal.kind === 'document' ? documents[removal.index] : links[removal.index % links.length];
          const id = target?.id as string;
          if (gone.has(id)) continue;
          gone.add(id);
          await (removal.kind === 'document' ? deleteDocument(ctx, id) : deleteLink(ctx, id));
          await expectFiguresMatch(
            { ...s, other },
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
      await applyViewDurations(tx, [{ ...view, addedSeconds: v.completeWith }]);
    }
  });
}

import type { Queryable } from '../db/database.ts';
import {
  applyDownloads,
  applyRoomViews,
  applyVisits,
  type LatestMove,
  slot,
  viewerFiguresOfViews,
  viewerViews,
} from './deltas.ts';
import type { Rows } from './rows.ts';

/** An import's staged rows (staging tables: rows without parameters). */
export interface StagedImport {
  views: Rows;
  visits: Rows;
  downloads: Rows;
  /** The viewers the import adds: id, deal_room_id, identity, email, created_at. */
  added: Rows;
}

/**
 * An import's events, applied as the live statements apply them, in the forms a million rows
 * want. The viewers it adds are seen by no other transaction, so they are inserted once, at the
 * end, with their figures, instead of inserted bare and updated (which wrote each row twice
 * and checked its keys twice). `countsStored`: the import counts events of viewers stored
 * before it, which other transactions may write too; their views go through the live
 * statement (viewerFiguresOfViews, which locks them first). Every kind's per-slot rows are
 * written by one statement, each row once.
 */
export async function applyImportedEvents(
  tx: Queryable,
  staged: StagedImport,
  countsStored: boolean,
): Promise<void> {
  const { views, visits, downloads, added } = staged;
  if ([views, visits, downloads, added].some((rows) => rows.params.length > 0)) {
    throw new Error('staged rows only');
  }
  const moves: LatestMove[] = [];
  if (countsStored) {
    const ofStored: Rows = {
      sql: `SELECT v.* FROM (${views.sql}) v WHERE v.viewer_id NOT IN (SELECT id FROM (${added.sql}) a)`,
      params: [],
    };
    moves.push(...(await viewerFiguresOfViews(tx, ofStored)));
  }
  moves.push(...(await insertViewersOfViews(tx, views, added)));
  await applyRoomViews(tx, views, moves, { slots: false });
  await applyVisits(tx, visits, 1, { slots: false });
  await applyDownloads(tx, downloads, 1, { slots: false });
  await applySlots(tx, staged, moves);
}

/**
 * Inserts the viewers `added` with the figures their views in `views` give them, the rules
 * of viewerFiguresOfViews for a viewer with no view counted yet: every document is new to
 * them, their latest view and latest name are their own. Returns each one's latest view as a
 * move into its slot, and one unique viewer added to the room.
 */
async function insertViewersOfViews(tx: Queryable, views: Rows, added: Rows): Promise<LatestMove[]> {
  const from = `(${views.sql}) s`;
  return tx.query<LatestMove>(
    `WITH ${viewerViews(from)}, documents AS (
       SELECT viewer_id, count(*)::int AS documents
         FROM (SELECT DISTINCT viewer_id, document_id FROM ${from}) pairs GROUP BY 1
     ), inserted AS (
       INSERT INTO viewers (id, deal_room_id, identity, email, created_at, name, total_views,
                            total_duration_seconds, documents_viewed, first_viewed_at, last_viewed_at,
                            last_view_id, last_link_id, name_at, name_view_id)
       SELECT a.id, a.deal_room_id, a.identity, a.email, a.created_at, coalesce(nm.viewer_name, ''),
              coalesce(agg.n, 0), coalesce(agg.duration, 0), coalesce(d.documents, 0), agg.first_at,
              l.started_at, l.id, l.link_id, nm.started_at, nm.id
         FROM (${added.sql}) a
         LEFT JOIN agg ON agg.viewer_id = a.id
         LEFT JOIN latest l ON l.viewer_id = a.id
         LEFT JOIN named nm ON nm.viewer_id = a.id
         LEFT JOIN documents d ON d.viewer_id = a.id
       RETURNING deal_room_id, last_viewed_at, total_views
     )
     SELECT deal_room_id AS room, ${slot('last_viewed_at')} AS slot, count(*)::int AS latest, count(*)::int AS added
       FROM inserted WHERE total_views > 0
      GROUP BY 1, 2`,
  );
}

/**
 * The per-slot rows of every kind at once (what applyRoomViews, applyVisits and applyDownloads
 * write with `slots` on): views and their duration, latest viewers moved, visits, downloads.
 * Those statements, earlier in the same transaction, moved every room's figures version.
 */
async function applySlots(tx: Queryable, staged: StagedImport, moves: LatestMove[]): Promise<void> {
  const { views, visits, downloads } = staged;
  await tx.query(
    `INSERT INTO room_slots (deal_room_id, slot, views, duration_seconds, latest_viewers, visits, downloads)
     SELECT room, slot, sum(views), sum(duration), sum(latest), sum(visits), sum(downloads)
       FROM (SELECT deal_room_id AS room, ${slot('started_at')} AS slot, count(*) AS views,
                    sum(duration_seconds) AS duration, 0 AS latest, 0 AS visits, 0 AS downloads
               FROM (${views.sql}) s GROUP BY 1, 2
             UNION ALL
             SELECT room, slot, 0, 0, latest, 0, 0
               FROM unnest($1::uuid[], $2::timestamptz[], $3::int[]) AS m(room, slot, latest)
             UNION ALL
             SELECT deal_room_id, ${slot('at')}, 0, 0, 0, count(*), 0 FROM (${visits.sql}) s GROUP BY 1, 2
             UNION ALL
             SELECT deal_room_id, ${slot('at')}, 0, 0, 0, 0, count(*) FROM (${downloads.sql}) s GROUP BY 1, 2) p
      GROUP BY 1, 2 ORDER BY 1, 2
     ON CONFLICT (deal_room_id, slot) DO UPDATE
        SET views = room_slots.views + excluded.views,
            duration_seconds = room_slots.duration_seconds + excluded.duration_seconds,
            latest_viewers = room_slots.latest_viewers + excluded.latest_viewers,
            visits = room_slots.visits + excluded.visits,
            downloads = room_slots.downloads + excluded.downloads`,
    [moves.map((m) => m.room), moves.map((m) => m.slot), moves.map((m) => m.latest)],
  );
}

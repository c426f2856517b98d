import type { Queryable } from '../db/database.ts';
import { applyRoomViews, type LatestMove, slot, viewerFiguresOfViews, viewerViews } from './deltas.ts';
import type { Rows } from './rows.ts';

/**
 * An import's views, applied as applyViewsStarted applies views, from staging tables (rows
 * without parameters). `added` are the viewers the import adds (id, deal_room_id, identity,
 * email, created_at): no other transaction sees them, so they are inserted once, at the end,
 * with their figures, instead of inserted bare and updated (which wrote each row twice and
 * checked its keys twice). `stored` are the viewers of these events that were stored before
 * the import: other transactions may write them too, so they are locked first, in id order as
 * applyViewersOfViews locks, and their figures then count every view committed before; they
 * are updated as live views update them. Then the rooms' figures.
 */
export async function applyImportedViews(
  tx: Queryable,
  views: Rows,
  added: Rows,
  stored: readonly string[],
): Promise<void> {
  if (views.params.length > 0 || added.params.length > 0) throw new Error('staged rows only');
  const moves: LatestMove[] = [];
  if (stored.length > 0) {
    await tx.query('SELECT 1 FROM viewers WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [stored]);
    const ofStored: Rows = {
      sql: `SELECT v.* FROM (${views.sql}) v WHERE v.viewer_id NOT IN (SELECT id FROM (${added.sql}) a)`,
      params: [],
    };
    moves.push(...(await viewerFiguresOfViews(tx, ofStored, { viewersLocked: true })));
  }
  moves.push(...(await insertViewersOfViews(tx, views, added)));
  await applyRoomViews(tx, views, moves);
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

import type { Queryable } from '../db/database.ts';
import { day, type LatestMove, movesCte, movesParams, slot, TIME_ROLLUPS } from './deltas.ts';
import type { Rows } from './rows.ts';

/**
 * The delta module's other half for views: views removed with the document, link or room
 * they belong to, taken off every figure they were counted in (visits and downloads are
 * taken off by applyVisits and applyDownloads with sign -1). Like the additions, call these
 * after the event rows themselves are deleted (a viewer is recomputed from the views left),
 * with the same lock order: viewers, then per-day and per-document rows, then the room.
 *
 * A removal is rare and may be large (a document with every view of a busy room), so it is
 * set-based: `rows` is normally a temporary table of the deleted rows.
 */

/** Views removed: each affected viewer is recomputed from the views they have left. */
export async function applyViewsRemoved(tx: Queryable, rows: Rows): Promise<void> {
  const from = `(${rows.sql}) s`;
  await tx.query(
    `SELECT 1 FROM viewers WHERE id IN (SELECT DISTINCT viewer_id FROM ${from}) ORDER BY id FOR UPDATE`,
    rows.params,
  );
  const moves = await tx.query<LatestMove>(
    `WITH affected AS (
       SELECT DISTINCT viewer_id AS id FROM ${from}
     ), agg AS (
       SELECT v.viewer_id, count(*)::int AS n, sum(v.duration_seconds) AS duration,
              count(DISTINCT v.document_id)::int AS documents, min(v.started_at) AS first_at
         FROM views v JOIN affected a ON a.id = v.viewer_id WHERE NOT v.internal GROUP BY 1
     ), latest AS (
       SELECT DISTINCT ON (v.viewer_id) v.viewer_id, v.started_at, v.id, v.link_id
         FROM views v JOIN affected a ON a.id = v.viewer_id
        WHERE NOT v.internal
        ORDER BY v.viewer_id, v.started_at DESC, v.id DESC
     ), named AS (
       SELECT DISTINCT ON (v.viewer_id) v.viewer_id, v.started_at, v.id, v.viewer_name
         FROM views v JOIN affected a ON a.id = v.viewer_id
        WHERE v.viewer_name <> '' AND NOT v.internal
        ORDER BY v.viewer_id, v.started_at DESC, v.id DESC
     ), old AS (
       SELECT w.id, w.deal_room_id, w.total_views AS old_views, w.last_viewed_at AS old_last
         FROM viewers w JOIN affected a ON a.id = w.id
     ), changed AS (
       UPDATE viewers w SET
              total_views = coalesce(agg.n, 0),
              total_duration_seconds = coalesce(agg.duration, 0),
              documents_viewed = coalesce(agg.documents, 0),
              first_viewed_at = agg.first_at,
              last_viewed_at = l.started_at, last_view_id = l.id, last_link_id = l.link_id,
              name = coalesce(nm.viewer_name, ''), name_at = nm.started_at, name_view_id = nm.id
         FROM old
         LEFT JOIN agg ON agg.viewer_id = old.id
         LEFT JOIN latest l ON l.viewer_id = old.id
         LEFT JOIN named nm ON nm.viewer_id = old.id
        WHERE w.id = old.id
       RETURNING old.deal_room_id, old.old_views, old.old_last, w.total_views AS new_views,
                 w.last_viewed_at AS new_last
     )
     SELECT deal_room_id AS room, slot, sum(latest)::int AS latest, sum(added)::int AS added
       FROM (SELECT deal_room_id, ${slot('old_last')} AS slot, -1 AS latest, -(new_views = 0)::int AS added
               FROM changed WHERE old_views > 0
             UNION ALL
             SELECT deal_room_id, ${slot('new_last')}, 1, 0 FROM changed WHERE new_views > 0) m
      GROUP BY 1, 2
     HAVING sum(latest) <> 0 OR sum(added) <> 0`,
    rows.params,
  );

  const n = rows.params.length;
  await tx.query(
    `WITH ${movesCte(n)}, per_document_day AS (
       UPDATE room_daily_views x
          SET views = x.views - a.n, duration_seconds = x.duration_seconds - a.duration
         FROM (SELECT deal_room_id, ${day('started_at')} AS day, document_id, count(*)::int AS n,
                      sum(duration_seconds) AS duration
                 FROM ${from} GROUP BY 1, 2, 3) a
        WHERE x.deal_room_id = a.deal_room_id AND x.day = a.day AND x.document_id = a.document_id
       RETURNING 1
     ), per_document AS (
       UPDATE documents d SET total_views = d.total_views - a.n, duration_sum = d.duration_sum - a.duration
         FROM (SELECT document_id, count(*)::int AS n, sum(duration_seconds) AS duration
                 FROM ${from} GROUP BY 1) a
        WHERE d.id = a.document_id
       RETURNING 1
     ), ${TIME_ROLLUPS.map(
       ({ cte, table, key, of }) => `${cte} AS (
       UPDATE ${table} x
          SET views = x.views - a.n, duration_seconds = x.duration_seconds - a.duration,
              latest_viewers = x.latest_viewers + a.latest
         FROM (SELECT room, ${key}, sum(n)::int AS n, sum(duration) AS duration, sum(latest)::int AS latest
                 FROM (SELECT deal_room_id AS room, ${of('started_at')} AS ${key}, count(*) AS n,
                              sum(duration_seconds) AS duration, 0 AS latest
                         FROM ${from} GROUP BY 1, 2
                       UNION ALL
                       SELECT room, ${key}, 0, 0, latest FROM moves) p
                GROUP BY 1, 2) a
        WHERE x.deal_room_id = a.room AND x.${key} = a.${key}
       RETURNING 1
     )`,
     ).join(', ')}
     UPDATE deal_rooms r
        SET total_views = r.total_views - a.n, duration_sum = r.duration_sum - a.duration,
            unique_viewers = r.unique_viewers + coalesce(m.added, 0),
            first_view_at = (SELECT min(w.first_viewed_at) FROM viewers w
                              WHERE w.deal_room_id = r.id AND w.total_views > 0),
            figures_version = r.figures_version + 1
       FROM (SELECT deal_room_id, count(*)::int AS n, sum(duration_seconds) AS duration
               FROM ${from} GROUP BY 1) a
       LEFT JOIN (SELECT room, sum(added)::int AS added FROM moves GROUP BY room) m ON m.room = a.deal_room_id
      WHERE r.id = a.deal_room_id`,
    [...rows.params, ...movesParams(moves)],
  );
}

/**
 * The page figures of views about to be removed (`where` selects them in views) are taken
 * off, before the views and their pages go.
 */
export async function applyPageReadingRemoved(
  tx: Queryable,
  where: string,
  params: unknown[],
): Promise<void> {
  await tx.query(
    `WITH gone AS (
       SELECT v.document_id, ${day('v.started_at')} AS day, p.page,
              count(*)::int AS views, sum(p.active_seconds) AS seconds
         FROM (SELECT id, document_id, started_at FROM views WHERE ${where}) v
         JOIN view_pages p ON p.view_id = v.id
        GROUP BY 1, 2, 3
     )
     UPDATE document_page_daily d
        SET views = d.views - gone.views, active_seconds = d.active_seconds - gone.seconds
       FROM gone
      WHERE d.document_id = gone.document_id AND d.day = gone.day AND d.page = gone.page`,
    params,
  );
}

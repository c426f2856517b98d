import type { Queryable } from '../db/database.ts';

/**
 * Recomputes the engagement columns of the viewers of the given rooms from their views, in
 * one statement. Every write that adds or changes views calls it in the same transaction,
 * so the viewer list always agrees with the views.
 */
export async function refreshViewerStats(tx: Queryable, roomIds: readonly string[]): Promise<void> {
  if (roomIds.length === 0) return;
  await tx.query(
    `WITH agg AS (
       SELECT viewer_id, count(*)::int AS n, sum(duration_seconds) AS duration,
              count(DISTINCT document_id)::int AS documents,
              min(started_at) AS first_at, max(started_at) AS last_at
         FROM views WHERE deal_room_id = ANY($1::uuid[]) GROUP BY viewer_id
     ), latest AS (
       SELECT DISTINCT ON (viewer_id) viewer_id, link_id
         FROM views WHERE deal_room_id = ANY($1::uuid[])
        ORDER BY viewer_id, started_at DESC, id DESC
     ), named AS (
       SELECT DISTINCT ON (viewer_id) viewer_id, viewer_name
         FROM views WHERE deal_room_id = ANY($1::uuid[]) AND viewer_name <> ''
        ORDER BY viewer_id, started_at DESC, id DESC
     )
     UPDATE viewers v
        SET total_views = coalesce(agg.n, 0),
            total_duration_seconds = coalesce(agg.duration, 0),
            documents_viewed = coalesce(agg.documents, 0),
            first_viewed_at = agg.first_at,
            last_viewed_at = agg.last_at,
            last_link_id = latest.link_id,
            name = coalesce(named.viewer_name, '')
       FROM viewers base
       LEFT JOIN agg ON agg.viewer_id = base.id
       LEFT JOIN latest ON latest.viewer_id = base.id
       LEFT JOIN named ON named.viewer_id = base.id
      WHERE v.id = base.id AND base.deal_room_id = ANY($1::uuid[])`,
    [roomIds],
  );
}

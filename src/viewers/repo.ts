import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { roomPageSql } from '../deal-rooms/repo.ts';

export interface ViewerRow {
  id: string;
  email: string;
  name: string;
  first_viewed_at: Date;
  last_viewed_at: Date;
  total_views: number;
  total_duration_seconds: number;
  documents_viewed: number;
  link_name: string;
}

const VIEWER_COLUMNS = `v.id, v.email, v.name, v.first_viewed_at, v.last_viewed_at, v.total_views,
  v.total_duration_seconds::float8 AS total_duration_seconds, v.documents_viewed,
  coalesce(l.name, '') AS link_name`;

/** Up to this many viewers are skipped by the index scan itself; further, days are walked. */
const SHALLOW_OFFSET = 2000;

/**
 * One page of the room's viewers, most recent view first, with the room's unique viewers as
 * the total. A deep page does not skip over every viewer before it: the room's per-day
 * counts of viewers whose latest view is that day (room_daily.latest_viewers) locate the
 * day the page starts in, and the index scan starts at the end of that day, so it reads at
 * most one day's viewers before the page instead of all the pages before it.
 */
export async function listViewers(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: string },
  shallowOffset = SHALLOW_OFFSET,
): Promise<(ViewerRow & PageRow)[]> {
  if (BigInt(page.offset) <= shallowOffset) {
    return db.query<ViewerRow & PageRow>(
      roomPageSql(
        'unique_viewers',
        `SELECT ${VIEWER_COLUMNS}
           FROM viewers v LEFT JOIN links l ON l.id = v.last_link_id
          WHERE v.deal_room_id = r.id AND v.total_views > 0
          ORDER BY v.last_viewed_at DESC, v.id
          LIMIT $3 OFFSET $4::bigint`,
      ),
      [roomId, teamId, page.limit, page.offset],
    );
  }
  return db.query<ViewerRow & PageRow>(
    `SELECT r.unique_viewers AS total, p.*
       FROM deal_rooms r
       LEFT JOIN LATERAL (
         SELECT b.day, b.upto - b.latest_viewers AS before
           FROM (SELECT day, latest_viewers, sum(latest_viewers) OVER (ORDER BY day DESC) AS upto
                   FROM room_daily WHERE deal_room_id = r.id AND latest_viewers > 0) b
          WHERE b.upto > $4::bigint
          ORDER BY b.day DESC
          LIMIT 1
       ) start ON true
       LEFT JOIN LATERAL (
         SELECT ${VIEWER_COLUMNS}
           FROM viewers v
           LEFT JOIN links l ON l.id = v.last_link_id
          WHERE v.deal_room_id = r.id AND v.total_views > 0
            AND v.last_viewed_at < ((start.day + 1)::timestamp AT TIME ZONE 'UTC')
          ORDER BY v.last_viewed_at DESC, v.id
          LIMIT $3 OFFSET ($4::bigint - start.before)
       ) p ON true
      WHERE r.id = $1 AND r.team_id = $2`,
    [roomId, teamId, page.limit, page.offset],
  );
}

export interface ViewerRecord extends ViewerRow {
  deal_room_id: string;
}

/** Viewers with views (the shape of the viewer list), by id; one without views is left out. */
export async function loadViewers(tx: Queryable, ids: readonly string[]): Promise<Map<string, ViewerRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.query<ViewerRecord>(
    `SELECT ${VIEWER_COLUMNS}, v.deal_room_id
       FROM viewers v LEFT JOIN links l ON l.id = v.last_link_id
      WHERE v.id = ANY ($1::uuid[]) AND v.total_views > 0`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

import type { Queryable } from '../db/database.ts';
import { isoDay } from '../shared/time.ts';

/**
 * The room, only when it is the team's: every query below reads the room's figures through
 * it, so isolation holds inside each query. Parameters: $1 room id, $2 team id.
 */
const TEAM_ROOM = '(SELECT r.id FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2)';

/**
 * Periods are whole UTC days, so every figure reads the daily rollups (one row per day and
 * document or link; see rollups.ts) from the first day on: the cost follows the number of
 * days, not the number of events. $3 is the first day.
 */
export async function roomTimeline(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<{ createdAt: Date; firstViewAt: Date | null } | undefined> {
  const rows = await db.query<{ created_at: Date; first_view_at: Date | null }>(
    `SELECT r.created_at,
            (SELECT min(v.started_at) FROM views v WHERE v.deal_room_id = r.id) AS first_view_at
       FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2`,
    [roomId, teamId],
  );
  const row = rows[0];
  return row && { createdAt: row.created_at, firstViewAt: row.first_view_at };
}

export async function viewTotals(db: Queryable, teamId: string, roomId: string, since: Date) {
  const rows = await db.query<{ views: number; duration: number; viewers: number }>(
    `SELECT coalesce(sum(views), 0)::int AS views, coalesce(sum(duration_seconds), 0)::float8 AS duration,
            -- A viewer viewed in the period exactly when their latest view is in it.
            (SELECT count(*)::int FROM viewers vw
              WHERE vw.deal_room_id = ${TEAM_ROOM} AND vw.total_views > 0 AND vw.last_viewed_at >= $4) AS viewers
       FROM room_daily_views WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date`,
    [roomId, teamId, isoDay(since), since],
  );
  return rows[0] ?? { views: 0, viewers: 0, duration: 0 };
}

export async function downloadCount(
  db: Queryable,
  teamId: string,
  roomId: string,
  since: Date,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT coalesce(sum(downloads), 0)::int AS n FROM room_daily_downloads
      WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date`,
    [roomId, teamId, isoDay(since)],
  );
  return rows[0]?.n ?? 0;
}

/** Views per UTC day; a view stamped after today (ingest allows a few minutes) counts today. */
export async function viewsPerDay(db: Queryable, teamId: string, roomId: string, since: Date, today: Date) {
  return db.query<{ day: string; views: number }>(
    `SELECT to_char(least(day, $4::date), 'YYYY-MM-DD') AS day, sum(views)::int AS views
       FROM room_daily_views WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date
      GROUP BY 1`,
    [roomId, teamId, isoDay(since), isoDay(today)],
  );
}

/** Names compare by code point: the "C" collation orders UTF-8 bytes, which is the same. */
export async function topDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
  since: Date,
  limit: number,
) {
  return db.query<{ id: string; name: string; views: number; duration: number }>(
    `SELECT t.document_id AS id, d.name, t.views, t.duration
       FROM (SELECT document_id, sum(views)::int AS views, sum(duration_seconds)::float8 AS duration
               FROM room_daily_views WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date
              GROUP BY document_id) t
       JOIN documents d ON d.id = t.document_id
      ORDER BY t.views DESC, d.name COLLATE "C", t.document_id
      LIMIT $4`,
    [roomId, teamId, isoDay(since), limit],
  );
}

export async function topLinks(db: Queryable, teamId: string, roomId: string, since: Date, limit: number) {
  return db.query<{ id: string; name: string; clicks: number }>(
    `SELECT t.link_id AS id, l.name, t.clicks
       FROM (SELECT link_id, sum(visits)::int AS clicks
               FROM room_daily_visits WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date
              GROUP BY link_id) t
       JOIN links l ON l.id = t.link_id
      ORDER BY t.clicks DESC, l.name COLLATE "C", t.link_id
      LIMIT $4`,
    [roomId, teamId, isoDay(since), limit],
  );
}

import type { Queryable } from '../db/database.ts';

/**
 * The room, only when it is the team's: every query below reads the room's events through
 * it, so isolation holds inside each query. Parameters: $1 room id, $2 team id.
 */
const TEAM_ROOM = '(SELECT r.id FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2)';

/**
 * Each query aggregates in the database over one room's events from `since` on, reading
 * the (deal_room_id, time) indexes; no event row is ever loaded into the process.
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
    `SELECT count(*)::int AS views, coalesce(sum(duration_seconds), 0)::float8 AS duration,
            -- A viewer viewed in the period exactly when their latest view is in it.
            (SELECT count(*)::int FROM viewers vw
              WHERE vw.deal_room_id = ${TEAM_ROOM} AND vw.total_views > 0 AND vw.last_viewed_at >= $3) AS viewers
       FROM views WHERE deal_room_id = ${TEAM_ROOM} AND started_at >= $3`,
    [roomId, teamId, since],
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
    `SELECT count(*)::int AS n FROM downloads WHERE deal_room_id = ${TEAM_ROOM} AND at >= $3`,
    [roomId, teamId, since],
  );
  return rows[0]?.n ?? 0;
}

/** Views per UTC day; a view stamped after today (ingest allows a few minutes) counts today. */
export async function viewsPerDay(db: Queryable, teamId: string, roomId: string, since: Date, today: Date) {
  return db.query<{ day: string; views: number }>(
    `SELECT to_char(least((started_at AT TIME ZONE 'UTC')::date, $4::date), 'YYYY-MM-DD') AS day,
            count(*)::int AS views
       FROM views WHERE deal_room_id = ${TEAM_ROOM} AND started_at >= $3
      GROUP BY 1`,
    [roomId, teamId, since, today.toISOString().slice(0, 10)],
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
    `SELECT v.document_id AS id, d.name, count(*)::int AS views,
            sum(v.duration_seconds)::float8 AS duration
       FROM views v JOIN documents d ON d.id = v.document_id
      WHERE v.deal_room_id = ${TEAM_ROOM} AND v.started_at >= $3
      GROUP BY v.document_id, d.name
      ORDER BY views DESC, d.name COLLATE "C", v.document_id
      LIMIT $4`,
    [roomId, teamId, since, limit],
  );
}

export async function topLinks(db: Queryable, teamId: string, roomId: string, since: Date, limit: number) {
  return db.query<{ id: string; name: string; clicks: number }>(
    `SELECT vi.link_id AS id, l.name, count(*)::int AS clicks
       FROM visits vi JOIN links l ON l.id = vi.link_id
      WHERE vi.deal_room_id = ${TEAM_ROOM} AND vi.at >= $3
      GROUP BY vi.link_id, l.name
      ORDER BY clicks DESC, l.name COLLATE "C", vi.link_id
      LIMIT $4`,
    [roomId, teamId, since, limit],
  );
}

import type { Queryable } from '../db/database.ts';

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

export async function countViewers(db: Queryable, teamId: string, roomId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM viewers v JOIN deal_rooms r ON r.id = v.deal_room_id
      WHERE v.deal_room_id = $1 AND r.team_id = $2 AND v.total_views > 0`,
    [roomId, teamId],
  );
  return rows[0]?.n ?? 0;
}

export async function listViewers(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: number },
): Promise<ViewerRow[]> {
  return db.query<ViewerRow>(
    `SELECT v.id, v.email, v.name, v.first_viewed_at, v.last_viewed_at, v.total_views,
            v.total_duration_seconds::float8 AS total_duration_seconds, v.documents_viewed,
            coalesce(l.name, '') AS link_name
       FROM viewers v
       JOIN deal_rooms r ON r.id = v.deal_room_id
       LEFT JOIN links l ON l.id = v.last_link_id
      WHERE v.deal_room_id = $1 AND r.team_id = $2 AND v.total_views > 0
      ORDER BY v.last_viewed_at DESC, v.id
      LIMIT $3 OFFSET $4`,
    [roomId, teamId, page.limit, page.offset],
  );
}

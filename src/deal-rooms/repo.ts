import type { Queryable } from '../db/database.ts';

export interface DealRoomRow {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  document_count: number;
  link_count: number;
  total_views: number;
  created_at: Date;
  updated_at: Date;
}

export interface DealRoomDetailRow extends DealRoomRow {
  unique_viewers: number;
  duration_sum: number;
}

/**
 * All-time figures come from the viewers' engagement columns (kept equal to their views in
 * every writing transaction), so they cost one row per viewer, not one per view.
 */
const COUNTS = `
  (SELECT count(*)::int FROM documents d WHERE d.deal_room_id = r.id AND d.status = 'published') AS document_count,
  (SELECT count(*)::int FROM links l WHERE l.deal_room_id = r.id) AS link_count`;

export async function countDealRooms(
  db: Queryable,
  teamId: string,
  status: string | undefined,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deal_rooms
      WHERE team_id = $1 AND ($2::text IS NULL OR status = $2)`,
    [teamId, status ?? null],
  );
  return rows[0]?.n ?? 0;
}

export async function listDealRooms(
  db: Queryable,
  teamId: string,
  options: { status: string | undefined; limit: number; offset: number },
): Promise<DealRoomRow[]> {
  return db.query<DealRoomRow>(
    `SELECT r.id, r.name, r.description, r.status, r.created_at, r.updated_at, ${COUNTS},
            (SELECT coalesce(sum(v.total_views), 0)::int FROM viewers v
              WHERE v.deal_room_id = r.id AND v.total_views > 0) AS total_views
       FROM deal_rooms r
      WHERE r.team_id = $1 AND ($2::text IS NULL OR r.status = $2)
      ORDER BY r.updated_at DESC, r.id
      LIMIT $3 OFFSET $4`,
    [teamId, options.status ?? null, options.limit, options.offset],
  );
}

export async function findDealRoom(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<DealRoomDetailRow | undefined> {
  const rows = await db.query<DealRoomDetailRow>(
    `SELECT r.id, r.name, r.description, r.status, r.created_at, r.updated_at, ${COUNTS},
            s.total_views, s.unique_viewers, s.duration_sum
       FROM deal_rooms r
      CROSS JOIN LATERAL (
        SELECT coalesce(sum(v.total_views), 0)::int AS total_views,
               count(*)::int AS unique_viewers,
               coalesce(sum(v.total_duration_seconds), 0)::float8 AS duration_sum
          FROM viewers v WHERE v.deal_room_id = r.id AND v.total_views > 0
      ) s
      WHERE r.id = $1 AND r.team_id = $2`,
    [id, teamId],
  );
  return rows[0];
}

/** The room's id when it belongs to the team, else undefined. */
export async function findRoomId(db: Queryable, teamId: string, id: string): Promise<string | undefined> {
  const rows = await db.query<{ id: string }>('SELECT id FROM deal_rooms WHERE id = $1 AND team_id = $2', [
    id,
    teamId,
  ]);
  return rows[0]?.id;
}

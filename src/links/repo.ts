import type { Queryable } from '../db/database.ts';

export interface LinkRow {
  id: string;
  name: string;
  short_id: string;
  enabled: boolean;
  requires_email: boolean;
  has_password: boolean;
  expires_at: Date | null;
  total_clicks: number;
  created_at: Date;
}

export async function countLinks(db: Queryable, teamId: string, roomId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.deal_room_id = $1 AND r.team_id = $2`,
    [roomId, teamId],
  );
  return rows[0]?.n ?? 0;
}

export async function listLinks(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: number },
): Promise<LinkRow[]> {
  // The password hash is reduced to a boolean here and goes no further.
  return db.query<LinkRow>(
    `SELECT l.id, l.name, l.short_id, l.enabled, l.requires_email,
            l.password_hash IS NOT NULL AS has_password, l.expires_at, l.created_at,
            (SELECT count(*)::int FROM visits vi WHERE vi.link_id = l.id) AS total_clicks
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.deal_room_id = $1 AND r.team_id = $2
      ORDER BY l.created_at DESC, l.id
      LIMIT $3 OFFSET $4`,
    [roomId, teamId, page.limit, page.offset],
  );
}

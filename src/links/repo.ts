import type { Queryable } from '../db/database.ts';
import { roomPageSql } from '../deal-rooms/repo.ts';
import type { PageRow } from '../http/envelope.ts';

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

/** One page of the room's links with their kept click counts, and the room's link count. */
export async function listLinks(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: string },
): Promise<(LinkRow & PageRow)[]> {
  // The password hash is reduced to a boolean here and goes no further.
  return db.query<LinkRow & PageRow>(
    roomPageSql(
      'link_count',
      `SELECT l.id, l.name, l.short_id, l.enabled, l.requires_email,
              l.password_hash IS NOT NULL AS has_password, l.expires_at, l.created_at, l.total_clicks
         FROM links l
        WHERE l.deal_room_id = r.id
        ORDER BY l.created_at DESC, l.id
        LIMIT $3 OFFSET $4::bigint`,
    ),
    [roomId, teamId, page.limit, page.offset],
  );
}

import type { Queryable } from '../db/database.ts';

export interface DocumentRow {
  id: string;
  name: string;
  display_name: string | null;
  source_type: string;
  page_count: number;
  status: string;
  position: number;
  created_at: Date;
  updated_at: Date;
}

export async function countPublishedDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<number> {
  const rows = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n
       FROM documents d JOIN deal_rooms r ON r.id = d.deal_room_id
      WHERE d.deal_room_id = $1 AND r.team_id = $2 AND d.status = 'published'`,
    [roomId, teamId],
  );
  return rows[0]?.n ?? 0;
}

export async function listPublishedDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: number },
): Promise<DocumentRow[]> {
  return db.query<DocumentRow>(
    `SELECT d.id, d.name, d.display_name, d.source_type, d.page_count, d.status, d.position,
            d.created_at, d.updated_at
       FROM documents d JOIN deal_rooms r ON r.id = d.deal_room_id
      WHERE d.deal_room_id = $1 AND r.team_id = $2 AND d.status = 'published'
      ORDER BY d.position, d.id
      LIMIT $3 OFFSET $4`,
    [roomId, teamId, page.limit, page.offset],
  );
}

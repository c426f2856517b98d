import type { Queryable } from '../db/database.ts';
import { roomPageSql } from '../deal-rooms/repo.ts';
import type { PageRow } from '../http/envelope.ts';

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

/** The room's published documents, one page, with the room's kept count as the total. */
export async function listPublishedDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: string },
): Promise<(DocumentRow & PageRow)[]> {
  return db.query<DocumentRow & PageRow>(
    roomPageSql(
      'document_count',
      `SELECT d.id, d.name, d.display_name, d.source_type, d.page_count, d.status, d.position,
              d.created_at, d.updated_at
         FROM documents d
        WHERE d.deal_room_id = r.id AND d.status = 'published'
        ORDER BY d.position, d.id
        LIMIT $3 OFFSET $4::bigint`,
    ),
    [roomId, teamId, page.limit, page.offset],
  );
}

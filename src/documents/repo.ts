import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { roomPageSql } from '../deal-rooms/repo.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';

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

const DOCUMENT_COLUMNS = `d.id, d.name, d.display_name, d.source_type, d.page_count, d.status, d.position,
  d.created_at, d.updated_at`;

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
      `SELECT ${DOCUMENT_COLUMNS}
         FROM documents d
        WHERE d.deal_room_id = r.id AND d.status = 'published'
        ORDER BY d.position, d.id
        LIMIT $3 OFFSET $4::bigint`,
    ),
    [roomId, teamId, page.limit, page.offset],
  );
}

export interface DocumentRecord extends DocumentRow {
  deal_room_id: string;
  team_id: string;
  download_override: boolean | null;
}

export async function loadDocument(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<DocumentRecord | undefined> {
  const rows = await tx.query<DocumentRecord>(
    `SELECT ${DOCUMENT_COLUMNS}, d.deal_room_id, r.team_id, d.download_override
       FROM documents d JOIN deal_rooms r ON r.id = d.deal_room_id
      WHERE d.id = $1${lockClause(lock, 'd')}`,
    [id],
  );
  return rows[0];
}

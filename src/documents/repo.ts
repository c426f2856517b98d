import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { queryRoomPage } from '../deal-rooms/repo.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';
import { scopeOf } from '../write/transaction.ts';

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
  return queryRoomPage<DocumentRow>(
    db,
    { teamId, roomId, page },
    'document_count',
    `SELECT ${DOCUMENT_COLUMNS}
       FROM documents d
      WHERE d.deal_room_id = r.id AND d.status = 'published'
      ORDER BY d.position, d.id
      LIMIT $3 OFFSET $4::bigint`,
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
      WHERE d.id = $1 AND ($2::uuid IS NULL OR r.team_id = $2)${lockClause(lock, 'd')}`,
    [id, scopeOf(tx)],
  );
  return rows[0];
}

/** Which of these ids are documents of the room. */
export async function documentsOfRoom(
  tx: Queryable,
  roomId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  const rows = await tx.query<{ id: string }>(
    'SELECT id FROM documents WHERE deal_room_id = $1 AND id = ANY ($2::uuid[])',
    [roomId, ids],
  );
  return new Set(rows.map((row) => row.id));
}

/** The columns a write sets on a document. */
export interface DocumentFields {
  name: string;
  display_name: string | null;
  source_type: string;
  page_count: number;
  position: number;
  download_override: boolean | null;
}

/** A new document; with no position it goes last in the room's sidebar. */
export async function insertDocument(
  tx: Queryable,
  document: Omit<DocumentFields, 'position'> & {
    id: string;
    roomId: string;
    status: string;
    position: number | null;
  },
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO documents (id, deal_room_id, name, display_name, source_type, page_count, status,
                            position, download_override, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7,
             coalesce($8, (SELECT coalesce(max(position), 0) + 1 FROM documents WHERE deal_room_id = $2)),
             $9, $10, $10)`,
    [
      document.id,
      document.roomId,
      document.name,
      document.display_name,
      document.source_type,
      document.page_count,
      document.status,
      document.position,
      document.download_override,
      now,
    ],
  );
}

export async function updateDocumentRow(
  tx: Queryable,
  id: string,
  fields: DocumentFields,
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE documents SET name = $2, display_name = $3, source_type = $4, page_count = $5, position = $6,
            download_override = $7, updated_at = $8
      WHERE id = $1`,
    [
      id,
      fields.name,
      fields.display_name,
      fields.source_type,
      fields.page_count,
      fields.position,
      fields.download_override,
      now,
    ],
  );
}

export async function setDocumentStatusRow(
  tx: Queryable,
  id: string,
  status: 'published' | 'draft',
  now: Date,
): Promise<void> {
  await tx.query('UPDATE documents SET status = $2, updated_at = $3 WHERE id = $1', [id, status, now]);
}

export async function deleteDocumentRow(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM documents WHERE id = $1', [id]);
}

/**
 * A room's documents in the order links show them, each row locked: two reorders of one room
 * wait for each other instead of interleaving.
 */
export async function lockDocumentOrder(
  tx: Queryable,
  roomId: string,
): Promise<{ id: string; position: number }[]> {
  const locked = await tx.query<{ id: string; position: number; created_at: Date }>(
    'SELECT id, position, created_at FROM documents WHERE deal_room_id = $1 ORDER BY id FOR UPDATE',
    [roomId],
  );
  return locked.sort(
    (a, b) =>
      a.position - b.position || a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id),
  );
}

export async function setDocumentPosition(
  tx: Queryable,
  id: string,
  position: number,
  now: Date,
): Promise<void> {
  await tx.query('UPDATE documents SET position = $2, updated_at = $3 WHERE id = $1', [id, position, now]);
}

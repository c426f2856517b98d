import type { Queryable } from '../db/database.ts';
import type { DealRoomDetailRow } from '../deal-rooms/repo.ts';
import type { DocumentRow } from '../documents/repo.ts';
import type { LinkRow } from '../links/repo.ts';
import type { ViewerRow } from '../viewers/repo.ts';

/**
 * The rows a write reads back, by id alone (the management API is not scoped to a caller's
 * team): to check what it changes, and to render the resource for its response and its
 * event with the read API's own mappers.
 */

/** FOR UPDATE: the row is changed or removed; FOR KEY SHARE: it must stay while events are added. */
export type RowLock = 'update' | 'key share' | 'none';
const lockClause = (lock: RowLock, of: string) =>
  lock === 'none' ? '' : lock === 'update' ? ` FOR UPDATE OF ${of}` : ` FOR KEY SHARE OF ${of}`;

export interface RoomRecord extends DealRoomDetailRow {
  team_id: string;
}

export async function loadRoom(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<RoomRecord | undefined> {
  const rows = await tx.query<RoomRecord>(
    `SELECT r.id, r.team_id, r.name, r.description, r.status, r.created_at, r.updated_at,
            r.document_count, r.link_count, r.total_views, r.unique_viewers,
            r.duration_sum::float8 AS duration_sum
       FROM deal_rooms r WHERE r.id = $1${lockClause(lock, 'r')}`,
    [id],
  );
  return rows[0];
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
    `SELECT d.id, d.deal_room_id, r.team_id, d.name, d.display_name, d.source_type, d.page_count,
            d.status, d.position, d.download_override, d.created_at, d.updated_at
       FROM documents d JOIN deal_rooms r ON r.id = d.deal_room_id
      WHERE d.id = $1${lockClause(lock, 'd')}`,
    [id],
  );
  return rows[0];
}

export interface LinkRecord extends LinkRow {
  deal_room_id: string;
  team_id: string;
  allow_download: boolean;
  /** null when the link shows every document of the room. */
  document_ids: string[] | null;
}

export async function loadLink(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<LinkRecord | undefined> {
  const rows = await tx.query<LinkRecord>(
    `SELECT l.id, l.deal_room_id, r.team_id, l.name, l.short_id, l.enabled, l.requires_email,
            l.password_hash IS NOT NULL AS has_password, l.expires_at, l.total_clicks, l.created_at,
            l.allow_download,
            CASE WHEN l.all_documents THEN NULL
                 ELSE coalesce((SELECT array_agg(ld.document_id::text ORDER BY ld.document_id)
                                  FROM link_documents ld WHERE ld.link_id = l.id), '{}') END AS document_ids
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.id = $1${lockClause(lock, 'l')}`,
    [id],
  );
  return rows[0];
}

export interface ViewerRecord extends ViewerRow {
  deal_room_id: string;
}

/** Viewers with views (the shape of the viewer list), by id; one without views is left out. */
export async function loadViewers(tx: Queryable, ids: readonly string[]): Promise<Map<string, ViewerRecord>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.query<ViewerRecord>(
    `SELECT v.id, v.deal_room_id, v.email, v.name, v.first_viewed_at, v.last_viewed_at, v.total_views,
            v.total_duration_seconds::float8 AS total_duration_seconds, v.documents_viewed,
            coalesce(l.name, '') AS link_name
       FROM viewers v LEFT JOIN links l ON l.id = v.last_link_id
      WHERE v.id = ANY ($1::uuid[]) AND v.total_views > 0`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

export async function teamExists(tx: Queryable, id: string): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM teams WHERE id = $1', [id])).length > 0;
}

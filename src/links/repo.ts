import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { roomPageSql } from '../deal-rooms/repo.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';

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

/** The password hash is reduced to a boolean here and goes no further. */
const LINK_COLUMNS = `l.id, l.name, l.short_id, l.enabled, l.requires_email,
  l.password_hash IS NOT NULL AS has_password, l.expires_at, l.created_at, l.total_clicks`;

/** One page of the room's links with their kept click counts, and the room's link count. */
export async function listLinks(
  db: Queryable,
  teamId: string,
  roomId: string,
  page: { limit: number; offset: string },
): Promise<(LinkRow & PageRow)[]> {
  return db.query<LinkRow & PageRow>(
    roomPageSql(
      'link_count',
      `SELECT ${LINK_COLUMNS}
         FROM links l
        WHERE l.deal_room_id = r.id
        ORDER BY l.created_at DESC, l.id
        LIMIT $3 OFFSET $4::bigint`,
    ),
    [roomId, teamId, page.limit, page.offset],
  );
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
    `SELECT ${LINK_COLUMNS}, l.deal_room_id, r.team_id, l.allow_download,
            CASE WHEN l.all_documents THEN NULL
                 ELSE coalesce((SELECT array_agg(ld.document_id::text ORDER BY ld.document_id)
                                  FROM link_documents ld WHERE ld.link_id = l.id), '{}') END AS document_ids
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.id = $1${lockClause(lock, 'l')}`,
    [id],
  );
  return rows[0];
}

import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { queryRoomPage } from '../deal-rooms/repo.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';
import { scopeOf } from '../write/transaction.ts';

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
  return queryRoomPage<LinkRow>(
    db,
    { teamId, roomId, page },
    'link_count',
    `SELECT ${LINK_COLUMNS}
       FROM links l
      WHERE l.deal_room_id = r.id
      ORDER BY l.created_at DESC, l.id
      LIMIT $3 OFFSET $4::bigint`,
  );
}

export interface LinkRecord extends LinkRow {
  deal_room_id: string;
  team_id: string;
  allow_download: boolean;
  watermark: boolean;
  /** null when the link shows every document of the room. */
  document_ids: string[] | null;
  verify_email: boolean;
  allow_list: string[];
  block_list: string[];
  agreement: string | null;
}

export async function loadLink(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<LinkRecord | undefined> {
  const rows = await tx.query<LinkRecord>(
    `SELECT ${LINK_COLUMNS}, l.deal_room_id, r.team_id, l.allow_download, l.watermark,
            l.verify_email, l.allow_list, l.block_list, l.agreement,
            CASE WHEN l.all_documents THEN NULL
                 ELSE coalesce((SELECT array_agg(ld.document_id::text ORDER BY ld.document_id)
                                  FROM link_documents ld WHERE ld.link_id = l.id), '{}') END AS document_ids
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.id = $1 AND ($2::uuid IS NULL OR r.team_id = $2)${lockClause(lock, 'l')}`,
    [id, scopeOf(tx)],
  );
  return rows[0];
}

/** A new link's row; its documents are set apart (replaceLinkDocuments). */
export interface NewLinkRow {
  id: string;
  roomId: string;
  name: string;
  shortId: string;
  enabled: boolean;
  requiresEmail: boolean;
  passwordHash: string | null;
  expiresAt: Date | null;
  allowDownload: boolean;
  watermark: boolean;
  allDocuments: boolean;
  verifyEmail: boolean;
  allowList: string[];
  blockList: string[];
  agreement: string | null;
}

/** A link created with an expiry already past has nothing left to announce. */
export async function insertLink(tx: Queryable, link: NewLinkRow, now: Date): Promise<void> {
  await tx.query(
    `INSERT INTO links (id, deal_room_id, name, short_id, enabled, requires_email, password_hash, expires_at,
                        allow_download, all_documents, created_at, updated_at, expiry_announced_for, watermark,
                        verify_email, allow_list, block_list, agreement)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11,
             CASE WHEN $8::timestamptz <= $11 THEN $8::timestamptz END, $12, $13, $14, $15, $16)`,
    [
      link.id,
      link.roomId,
      link.name,
      link.shortId,
      link.enabled,
      link.requiresEmail,
      link.passwordHash,
      link.expiresAt,
      link.allowDownload,
      link.allDocuments,
      now,
      link.watermark,
      link.verifyEmail,
      link.allowList,
      link.blockList,
      link.agreement,
    ],
  );
}

/** A link's settings as a write gives them; undefined leaves one as it is. */
export interface LinkSettings {
  shortId?: string | undefined;
  enabled?: boolean | undefined;
  requiresEmail?: boolean | undefined;
  /** null: the link does not expire. */
  expiresAt?: Date | null | undefined;
  allowDownload?: boolean | undefined;
  watermark?: boolean | undefined;
  verifyEmail?: boolean | undefined;
  /** Kept keys (core/email-entries.ts). */
  allowList?: string[] | undefined;
  blockList?: string[] | undefined;
  /** null: no agreement. */
  agreement?: string | null | undefined;
}

/** What an update sets; undefined leaves a column as it is (a null password hash clears it). */
export interface LinkRowChanges extends LinkSettings {
  name?: string | undefined;
  passwordHash?: string | null | undefined;
  allDocuments?: boolean | undefined;
}

export async function updateLinkRow(
  tx: Queryable,
  id: string,
  changes: LinkRowChanges,
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE links SET name = coalesce($2, name), short_id = coalesce($3, short_id),
            enabled = coalesce($4, enabled), requires_email = coalesce($5, requires_email),
            password_hash = CASE WHEN $6 THEN $7 ELSE password_hash END,
            expires_at = CASE WHEN $8 THEN $9 ELSE expires_at END,
            -- An expiry moved from one past time to another is not a new expiry.
            expiry_announced_for = CASE WHEN $8 AND $9::timestamptz <= $13 AND expires_at <= $13 THEN $9::timestamptz
                                        ELSE expiry_announced_for END,
            allow_download = coalesce($10, allow_download),
            all_documents = CASE WHEN $11 THEN $12 ELSE all_documents END,
            watermark = coalesce($14, watermark),
            verify_email = coalesce($15, verify_email),
            allow_list = coalesce($16, allow_list),
            block_list = coalesce($17, block_list),
            agreement = CASE WHEN $18 THEN $19 ELSE agreement END
      WHERE id = $1`,
    [
      id,
      changes.name ?? null,
      changes.shortId ?? null,
      changes.enabled ?? null,
      changes.requiresEmail ?? null,
      changes.passwordHash !== undefined,
      changes.passwordHash ?? null,
      changes.expiresAt !== undefined,
      changes.expiresAt ?? null,
      changes.allowDownload ?? null,
      changes.allDocuments !== undefined,
      changes.allDocuments ?? null,
      now,
      changes.watermark ?? null,
      changes.verifyEmail ?? null,
      changes.allowList ?? null,
      changes.blockList ?? null,
      changes.agreement !== undefined,
      changes.agreement ?? null,
    ],
  );
}

export async function touchLink(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query('UPDATE links SET updated_at = $2 WHERE id = $1', [id, now]);
}

export async function disableLink(tx: Queryable, id: string, now: Date): Promise<void> {
  await tx.query('UPDATE links SET enabled = false, updated_at = $2 WHERE id = $1', [id, now]);
}

export async function deleteLinkRow(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM links WHERE id = $1', [id]);
}

/** The ids of links with this short id (at most one; two only inside a racing write). */
export async function linksWithShortId(tx: Queryable, shortId: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>('SELECT id FROM links WHERE short_id = $1', [shortId]);
  return rows.map((row) => row.id);
}

/** The documents a link shows: none listed means all of the room's. */
export async function replaceLinkDocuments(
  tx: Queryable,
  linkId: string,
  documentIds: readonly string[] | null,
): Promise<void> {
  await tx.query('DELETE FROM link_documents WHERE link_id = $1', [linkId]);
  if (documentIds === null || documentIds.length === 0) return;
  await tx.query(
    'INSERT INTO link_documents (link_id, document_id) SELECT $1, unnest($2::uuid[]) ON CONFLICT DO NOTHING',
    [linkId, documentIds],
  );
}

/**
 * Links expired by `now` whose expiry was not yet announced, oldest first, locked; links
 * another worker is announcing are skipped.
 */
export async function lockDueExpiries(tx: Queryable, now: Date, limit: number): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM links
      WHERE expires_at <= $1 AND expiry_announced_for IS DISTINCT FROM expires_at
      ORDER BY expires_at LIMIT $2
      FOR NO KEY UPDATE SKIP LOCKED`,
    [now, limit],
  );
  return rows.map((row) => row.id);
}

export async function markExpiryAnnounced(tx: Queryable, id: string): Promise<void> {
  await tx.query('UPDATE links SET expiry_announced_for = expires_at WHERE id = $1', [id]);
}

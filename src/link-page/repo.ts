import type { Queryable } from '../db/database.ts';
import { NEWEST_FILE_JOIN } from '../documents/newest-file.ts';

/** What the link page needs of a link, found by its short id. */
export interface PublicLink {
  id: string;
  name: string;
  deal_room_id: string;
  room_name: string;
  enabled: boolean;
  expires_at: Date | null;
  /** The gate asks for an email: the link says so, or it verifies emails or has lists. */
  requires_email: boolean;
  verify_email: boolean;
  has_agreement: boolean;
  /** A digest of the lists and the agreement: a session that passed other ones asks again. */
  gate_digest: string;
  password_hash: string | null;
  allow_download: boolean;
  watermark: boolean;
}

/** A document as the link shows it. */
export interface ShownDocument {
  id: string;
  title: string;
  page_count: number;
  download_allowed: boolean;
  file_type: string | null;
  /** The file's newest version, and its pages drawn so far. */
  version_id: string | null;
  pages_ready: number | null;
}

/** A link, with the documents its page asked for. */
export type ShownLink = PublicLink & { documents: ShownDocument[] };

/** Which of the link's documents a page needs with it: none, all it shows, or one of them. */
export type ShownSelection = 'none' | 'all' | { id: string };

/**
 * A link by its short id, with the published documents it shows that the page needs (in
 * sidebar order): one statement, so a page of the link costs one round trip.
 */
export async function linkByShortId(
  db: Queryable,
  shortId: string,
  shown: ShownSelection = 'none',
): Promise<ShownLink | undefined> {
  const documents =
    shown === 'none'
      ? `'[]'::json`
      : `coalesce((
          SELECT json_agg(json_build_object(
                   'id', d.id, 'title', coalesce(d.display_name, d.name), 'page_count', d.page_count,
                   'download_allowed', coalesce(d.download_override, l.allow_download),
                   'file_type', f.content_type, 'version_id', f.version_id,
                   'pages_ready', f.pages_ready) ORDER BY d.position, d.id)
            FROM documents d ${NEWEST_FILE_JOIN}
           WHERE d.deal_room_id = l.deal_room_id AND d.status = 'published'
             ${shown === 'all' ? '' : 'AND d.id = $2::uuid'}
             AND (l.all_documents OR EXISTS (SELECT 1 FROM link_documents ld
                                              WHERE ld.link_id = l.id AND ld.document_id = d.id))
        ), '[]'::json)`;
  const [row] = await db.query<ShownLink>(
    `SELECT l.id, l.name, l.deal_room_id, r.name AS room_name, l.enabled, l.expires_at,
            (l.requires_email OR l.verify_email OR cardinality(l.allow_list) > 0
              OR cardinality(l.block_list) > 0) AS requires_email,
            l.verify_email, l.agreement IS NOT NULL AS has_agreement,
            md5(array_to_string(l.allow_list, ',') || '|' || array_to_string(l.block_list, ',') || '|'
                || coalesce(l.agreement, '')) AS gate_digest,
            l.password_hash, l.allow_download, l.watermark, ${documents} AS documents
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.short_id = $1`,
    typeof shown === 'object' ? [shortId, shown.id] : [shortId],
    { prepared: `link-page-${typeof shown === 'object' ? 'one' : shown}` },
  );
  return row;
}

/** A version's pages as the viewer lays them out (O(pages stored)). */
export interface ShownPages {
  version: number;
  count: number;
  /** Height at width 1600 of each page rendered so far (0: it could not be drawn), from page 1. */
  heights: number[];
}

/** A document's newest version as the viewer lays it out: its pages and the heights of those rendered. */
export async function shownPages(db: Queryable, documentId: string): Promise<ShownPages | undefined> {
  const [row] = await db.query<{ version: number; page_count: number; heights: number[] | null }>(
    `SELECT f.version, f.page_count,
            (SELECT array_agg(i.height ORDER BY i.page) FROM page_images i
              WHERE i.version_id = f.version_id AND i.width = 1600 AND i.page <= f.pages_ready) AS heights
       FROM document_files f WHERE f.document_id = $1`,
    [documentId],
    // Asked by every opening of the viewer: parsed and planned once per connection, where
    // parsing and planning it took five times as long as running it.
    { prepared: 'shown-pages' },
  );
  if (!row) return undefined;
  return { version: row.version, count: row.page_count, heights: row.heights ?? [] };
}

/** A page image of a version (empty: the page could not be drawn); undefined when not drawn yet. */
export async function pageImage(
  db: Queryable,
  versionId: string,
  page: number,
  width: number,
): Promise<Uint8Array | undefined> {
  const [row] = await db.query<{ bytes: Uint8Array }>(
    'SELECT bytes FROM page_images WHERE version_id = $1 AND page = $2 AND width = $3',
    [versionId, page, width],
    { prepared: 'link-page-image' },
  );
  return row?.bytes;
}

/** Wrong passwords one address may try on one link in the window before it waits. */
export const GATE_FAILURES = { limit: 5, windowMs: 15 * 60 * 1000 };

/** Wrong passwords from one address on one link since `since`. */
export async function gateFailures(db: Queryable, linkId: string, address: string, since: Date) {
  const [row] = await db.query<{ n: number; oldest: Date | null }>(
    `SELECT count(*)::int AS n, min(failed_at) AS oldest FROM gate_failures
      WHERE link_id = $1 AND address = $2 AND failed_at > $3`,
    [linkId, address, since],
  );
  return { count: row?.n ?? 0, oldest: row?.oldest ?? null };
}

export async function recordGateFailure(
  db: Queryable,
  linkId: string,
  address: string,
  at: Date,
  attempt: string,
): Promise<void> {
  await db.query('INSERT INTO gate_failures (link_id, address, failed_at, attempt) VALUES ($1, $2, $3, $4)', [
    linkId,
    address,
    at,
    attempt,
  ]);
}

/** An attempt whose password was right is no failure. */
export async function forgetGateAttempt(db: Queryable, attempt: string): Promise<void> {
  await db.query('DELETE FROM gate_failures WHERE attempt = $1', [attempt]);
}

/** Forgets wrong passwords older than `before` (the worker's housekeeping). */
export async function pruneGateFailures(db: Queryable, before: Date): Promise<void> {
  await db.query('DELETE FROM gate_failures WHERE failed_at < $1', [before]);
}

/** The named secret of the service, made once by whichever process needs it first. */
export async function serviceSecret(db: Queryable, name: string, fresh: string, at: Date): Promise<string> {
  await db.query(
    'INSERT INTO service_secrets (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING',
    [name, fresh, at],
  );
  const [row] = await db.query<{ value: string }>('SELECT value FROM service_secrets WHERE name = $1', [
    name,
  ]);
  if (!row) throw new Error(`the service secret ${name} could not be read`);
  return row.value;
}

/** What the gate's later steps read of a link: its lists and its agreement. */
export async function gateRules(
  db: Queryable,
  linkId: string,
): Promise<{ allow_list: string[]; block_list: string[]; agreement: string | null } | undefined> {
  const [row] = await db.query<{ allow_list: string[]; block_list: string[]; agreement: string | null }>(
    'SELECT allow_list, block_list, agreement FROM links WHERE id = $1',
    [linkId],
  );
  return row;
}

/** Codes sent for a link to an email since a time: how many, and when the latest went. */
export async function codesSent(
  db: Queryable,
  linkId: string,
  email: string,
  since: Date,
): Promise<{ count: number; latest: Date | null }> {
  const [row] = await db.query<{ count: number; latest: Date | null }>(
    `SELECT count(*)::int AS count, max(sent_at) AS latest FROM gate_codes
      WHERE link_id = $1 AND lower(email) = lower($2) AND sent_at > $3`,
    [linkId, email, since],
  );
  return row ?? { count: 0, latest: null };
}

export async function insertCode(
  db: Queryable,
  code: { id: string; linkId: string; email: string; sha256: string; sentAt: Date; expiresAt: Date },
): Promise<void> {
  await db.query(
    `INSERT INTO gate_codes (id, link_id, email, code_sha256, sent_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [code.id, code.linkId, code.email, code.sha256, code.sentAt, code.expiresAt],
  );
}

/**
 * One try of a code, counted before it is compared (in the statement that reads it): the code's
 * hash while it is good (unexpired, tries left), else why not.
 */
export async function tryCode(
  db: Queryable,
  id: string,
  linkId: string,
  now: Date,
  maxTries: number,
): Promise<{ sha256: string } | 'expired' | 'spent'> {
  const [row] = await db.query<{ code_sha256: string; tries: number; expires_at: Date }>(
    `UPDATE gate_codes SET tries = tries + 1
      WHERE id = $1 AND link_id = $2 AND tries < $4 AND expires_at > $3
      RETURNING code_sha256, tries, expires_at`,
    [id, linkId, now, maxTries],
  );
  if (row) return { sha256: row.code_sha256 };
  const [left] = await db.query<{ tries: number; expires_at: Date }>(
    'SELECT tries, expires_at FROM gate_codes WHERE id = $1 AND link_id = $2',
    [id, linkId],
  );
  return left && left.expires_at > now ? 'spent' : 'expired';
}

export async function deleteCode(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM gate_codes WHERE id = $1', [id]);
}

/** A refusal by the link's lists, or an accepted agreement, as the gate records it. */
export interface GateRecord {
  id: string;
  roomId: string;
  linkId: string;
  kind: 'refused' | 'agreed';
  at: Date;
  email: string | null;
  name: string | null;
  address: string;
  verified: boolean;
  agreementSha256: string | null;
}

export async function insertGateRecord(db: Queryable, r: GateRecord): Promise<void> {
  await db.query(
    `INSERT INTO gate_records (id, deal_room_id, link_id, kind, at, email, name, address, verified, agreement_sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [r.id, r.roomId, r.linkId, r.kind, r.at, r.email, r.name, r.address, r.verified, r.agreementSha256],
  );
}

import type { Queryable } from '../db/database.ts';

/** What the link page needs of a link, found by its short id. */
export interface PublicLink {
  id: string;
  room_name: string;
  enabled: boolean;
  expires_at: Date | null;
  requires_email: boolean;
  password_hash: string | null;
  allow_download: boolean;
  watermark: boolean;
}

export async function linkByShortId(db: Queryable, shortId: string): Promise<PublicLink | undefined> {
  const [row] = await db.query<PublicLink>(
    `SELECT l.id, r.name AS room_name, l.enabled, l.expires_at, l.requires_email, l.password_hash,
            l.allow_download, l.watermark
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.short_id = $1`,
    [shortId],
  );
  return row;
}

/** A document as the link shows it. */
export interface ShownDocument {
  id: string;
  title: string;
  page_count: number;
  download_allowed: boolean;
  file_type: string | null;
}

const SHOWN = `
  SELECT d.id, coalesce(d.display_name, d.name) AS title, d.page_count,
         coalesce(d.download_override, l.allow_download) AS download_allowed, f.content_type AS file_type
    FROM links l
    JOIN documents d ON d.deal_room_id = l.deal_room_id AND d.status = 'published'
    LEFT JOIN document_files f ON f.document_id = d.id
   WHERE l.id = $1
     AND (l.all_documents OR EXISTS (SELECT 1 FROM link_documents ld WHERE ld.link_id = l.id AND ld.document_id = d.id))`;

/** The published documents the link shows, in sidebar order. */
export async function shownDocuments(db: Queryable, linkId: string): Promise<ShownDocument[]> {
  return db.query<ShownDocument>(`${SHOWN} ORDER BY d.position, d.id`, [linkId]);
}

/** One document, if the link shows it (published, and among its documents). */
export async function shownDocument(
  db: Queryable,
  linkId: string,
  documentId: string,
): Promise<ShownDocument | undefined> {
  const [row] = await db.query<ShownDocument>(`${SHOWN} AND d.id = $2`, [linkId, documentId]);
  return row;
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
): Promise<void> {
  await db.query('INSERT INTO gate_failures (link_id, address, failed_at) VALUES ($1, $2, $3)', [
    linkId,
    address,
    at,
  ]);
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

import { type Rows, VIEW_COLUMNS } from '../aggregates/rows.ts';
import type { Queryable } from '../db/database.ts';

/** The SQL of live tracking: its event rows, the checks of what a link opens, its viewers. */

export async function insertVisit(
  tx: Queryable,
  visit: { id: string; dealRoomId: string; linkId: string; viewerId: string; at: Date },
): Promise<void> {
  await tx.query(
    'INSERT INTO visits (id, deal_room_id, link_id, viewer_id, at) VALUES ($1, $2, $3, $4, $5)',
    [visit.id, visit.dealRoomId, visit.linkId, visit.viewerId, visit.at],
  );
}

/** Views started together, as the delta module's literal rows. */
export async function insertViews(tx: Queryable, rows: Rows): Promise<void> {
  await tx.query(
    `INSERT INTO views (${VIEW_COLUMNS.map(([name]) => name).join(', ')}) ${rows.sql}`,
    rows.params,
  );
}

export interface ViewToComplete {
  deal_room_id: string;
  team_id: string;
  document_id: string;
  link_id: string;
  viewer_id: string;
  started_at: Date;
  completed_at: Date | null;
  duration_seconds: number;
  last_report_at: Date | null;
}

/** A view with its room's team, locked for its completion. */
export async function lockView(tx: Queryable, id: string): Promise<ViewToComplete | undefined> {
  const rows = await tx.query<ViewToComplete>(
    `SELECT v.deal_room_id, r.team_id, v.document_id, v.link_id, v.viewer_id, v.started_at, v.completed_at,
            v.duration_seconds, v.last_report_at
       FROM views v JOIN deal_rooms r ON r.id = v.deal_room_id
      WHERE v.id = $1 FOR UPDATE OF v`,
    [id],
  );
  return rows[0];
}

export async function completeViewRow(
  tx: Queryable,
  id: string,
  durationSeconds: number,
  now: Date,
): Promise<void> {
  await tx.query('UPDATE views SET duration_seconds = $2, completed_at = $3 WHERE id = $1', [
    id,
    durationSeconds,
    now,
  ]);
}

/** A download, or its refusal (kept apart: a refusal counts in no figure). */
export async function insertDownload(
  tx: Queryable,
  download: {
    id: string;
    dealRoomId: string;
    documentId: string;
    linkId: string;
    viewerId: string;
    at: Date;
  },
  allowed: boolean,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${allowed ? 'downloads' : 'download_refusals'} (id, deal_room_id, document_id, link_id, viewer_id, at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [download.id, download.dealRoomId, download.documentId, download.linkId, download.viewerId, download.at],
  );
}

/** What a link and a document of the request (by its 1-based place `i`) allow. */
export interface TargetRow {
  i: number;
  deal_room_id: string;
  team_id: string;
  enabled: boolean;
  expires_at: Date | null;
  requires_email: boolean;
  allow_download: boolean;
  /** The document is published in the link's room and shown by the link. */
  shown: boolean;
  download_override: boolean | null;
}

/** The links and documents of several requests in one statement; an unknown link has no row. */
export async function readTargets(
  tx: Queryable,
  linkIds: readonly string[],
  documentIds: readonly (string | null)[],
): Promise<TargetRow[]> {
  return tx.query<TargetRow>(
    `SELECT t.i::int AS i, l.deal_room_id, r.team_id, l.enabled, l.expires_at, l.requires_email,
            l.allow_download, d.id IS NOT NULL AS shown, d.download_override
       FROM unnest($1::uuid[], $2::uuid[]) WITH ORDINALITY AS t(link_id, document_id, i)
       JOIN links l ON l.id = t.link_id
       JOIN deal_rooms r ON r.id = l.deal_room_id
       LEFT JOIN documents d
              ON d.id = t.document_id AND d.deal_room_id = l.deal_room_id AND d.status = 'published'
             AND (l.all_documents OR EXISTS (SELECT 1 FROM link_documents ld
                                              WHERE ld.link_id = l.id AND ld.document_id = d.id))`,
    [linkIds, documentIds],
  );
}

export interface ViewerKey {
  newId: string;
  roomId: string;
  identity: string;
  email: string;
}

/** Inserts the viewers that are new, then locks them all, in id order. */
export async function insertAndLockViewers(
  tx: Queryable,
  viewers: readonly ViewerKey[],
  now: Date,
): Promise<
  { id: string; deal_room_id: string; identity: string; total_views: number; last_viewed_at: Date | null }[]
> {
  const rooms = viewers.map((v) => v.roomId);
  const identities = viewers.map((v) => v.identity);
  await tx.query(
    `INSERT INTO viewers (id, deal_room_id, identity, email, created_at)
     SELECT id, room, identity, email, $5 FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[])
         AS t(id, room, identity, email)
      ORDER BY room, identity
     ON CONFLICT (deal_room_id, identity) DO NOTHING`,
    [viewers.map((v) => v.newId), rooms, identities, viewers.map((v) => v.email), now],
  );
  return tx.query(
    `SELECT v.id, v.deal_room_id, v.identity, v.total_views, v.last_viewed_at
       FROM viewers v JOIN unnest($1::uuid[], $2::text[]) AS t(room, identity)
            ON v.deal_room_id = t.room AND v.identity = t.identity
      ORDER BY v.id FOR UPDATE OF v`,
    [rooms, identities],
  );
}

/** A view opened on the link page: it reports its reading, and the worker completes it when the reports stop. */
export async function markViewReporting(tx: Queryable, id: string, at: Date): Promise<void> {
  await tx.query('UPDATE views SET last_report_at = $2 WHERE id = $1 AND completed_at IS NULL', [id, at]);
}

/**
 * Adds a report's active seconds to a view's pages; returns the pages read for the first time
 * in this view (their `views` count in the page figures grows by one).
 */
export async function addViewPages(
  tx: Queryable,
  viewId: string,
  pages: readonly { page: number; seconds: number }[],
): Promise<Set<number>> {
  if (pages.length === 0) return new Set();
  const rows = await tx.query<{ page: number; fresh: boolean }>(
    `INSERT INTO view_pages (view_id, page, active_seconds)
     SELECT $1, p.page, p.seconds FROM unnest($2::int[], $3::int[]) AS p(page, seconds)
     ON CONFLICT (view_id, page) DO UPDATE SET active_seconds = view_pages.active_seconds + EXCLUDED.active_seconds
     RETURNING page, (xmax = 0) AS fresh`,
    [viewId, pages.map((p) => p.page), pages.map((p) => p.seconds)],
  );
  return new Set(rows.filter((r) => r.fresh).map((r) => r.page));
}

export async function recordReport(
  tx: Queryable,
  id: string,
  durationSeconds: number,
  at: Date,
  completed: boolean,
): Promise<void> {
  await tx.query(
    `UPDATE views SET duration_seconds = $2, last_report_at = $3,
            completed_at = CASE WHEN $4::boolean THEN $3 ELSE completed_at END
      WHERE id = $1`,
    [id, durationSeconds, at, completed],
  );
}

/** Views whose page stopped reporting before `before`, oldest first. */
export async function silentViews(tx: Queryable, before: Date, limit: number): Promise<string[]> {
  const rows = await tx.query<{ id: string }>(
    `SELECT id FROM views WHERE completed_at IS NULL AND last_report_at IS NOT NULL AND last_report_at < $1
      ORDER BY last_report_at LIMIT $2`,
    [before, limit],
  );
  return rows.map((r) => r.id);
}

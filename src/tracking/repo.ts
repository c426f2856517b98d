import { type Rows, VIEW_COLUMNS } from '../aggregates/rows.ts';
import type { Queryable } from '../db/database.ts';
import { scopeOf } from '../write/transaction.ts';

/** The SQL of live tracking: its event rows, the checks of what a link opens, its viewers. */

export async function insertVisit(
  tx: Queryable,
  visit: {
    id: string;
    dealRoomId: string;
    linkId: string;
    viewerId: string;
    at: Date;
    verified: boolean;
    internal: boolean;
  },
): Promise<void> {
  await tx.query(
    `INSERT INTO visits (id, deal_room_id, link_id, viewer_id, at, verified, internal)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [visit.id, visit.dealRoomId, visit.linkId, visit.viewerId, visit.at, visit.verified, visit.internal],
  );
}

/**
 * Views started together, each with the version of its document's file on screen (its page
 * figures stay that version's after a replacement), as the delta module's literal rows; those opened on the link page
 * (`reporting`, the ids in `marks.ids`) are marked as reporting from `at` in the same statement:
 * they report their reading (tracking/reading.ts), and the worker completes them when the
 * reports stop. Views of the team's own people (`marks.internal`) are marked internal.
 */
export async function insertViews(
  tx: Queryable,
  rows: Rows,
  marks: { ids: readonly string[]; at: Date; internal?: readonly string[] },
): Promise<void> {
  const n = rows.params.length;
  await tx.query(
    `INSERT INTO views (${VIEW_COLUMNS.map(([name]) => name).join(', ')}, last_report_at, version_id, internal)
     SELECT s.*, CASE WHEN s.id = ANY ($${n + 1}::uuid[]) THEN $${n + 2}::timestamptz END,
            (SELECT v.id FROM document_versions v WHERE v.document_id = s.document_id
              ORDER BY v.version DESC LIMIT 1),
            s.id = ANY ($${n + 3}::uuid[])
       FROM (${rows.sql}) s`,
    [...rows.params, marks.ids, marks.at, marks.internal ?? []],
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
  /** The id of the last report counted (a report sent again is counted once). */
  last_report_id: string | null;
  /** The pages of the document's file the view reads (0 without a file). */
  page_count: number;
  /** The link the view came through: its short id, and whether it is open. */
  short_id: string;
  link_enabled: boolean;
  link_expires_at: Date | null;
  /** A view of one of the team's own people: counted in no figure and no event. */
  internal: boolean;
}

/** A locked view as the deltas and its events see it, with its duration as it is to be. */
export function lockedView(id: string, row: ViewToComplete, durationSeconds: number) {
  return {
    id,
    dealRoomId: row.deal_room_id,
    documentId: row.document_id,
    linkId: row.link_id,
    viewerId: row.viewer_id,
    startedAt: row.started_at,
    durationSeconds,
  };
}

const LOCK_VIEWS = `SELECT v.id, v.deal_room_id, r.team_id, v.document_id, v.link_id, v.viewer_id, v.started_at,
            v.completed_at, v.duration_seconds, v.last_report_at, v.last_report_id, v.internal,
            (SELECT d.page_count FROM documents d WHERE d.id = v.document_id) AS page_count,
            l.short_id, l.enabled AS link_enabled, l.expires_at AS link_expires_at
       FROM views v JOIN deal_rooms r ON r.id = v.deal_room_id JOIN links l ON l.id = v.link_id`;

/** A view with its room's team, locked for its completion. */
export async function lockView(tx: Queryable, id: string): Promise<ViewToComplete | undefined> {
  const rows = await tx.query<ViewToComplete>(
    `${LOCK_VIEWS} WHERE v.id = $1 AND ($2::uuid IS NULL OR r.team_id = $2) FOR UPDATE OF v`,
    [id, scopeOf(tx)],
  );
  return rows[0];
}

/** Views with their rooms' teams, locked in id order (two batches sharing views cannot deadlock); unknown ids have no entry. */
export async function lockViews(tx: Queryable, ids: readonly string[]): Promise<Map<string, ViewToComplete>> {
  const rows = await tx.query<ViewToComplete & { id: string }>(
    `${LOCK_VIEWS} WHERE v.id = ANY ($1::uuid[]) ORDER BY v.id FOR UPDATE OF v`,
    [ids],
  );
  return new Map(rows.map((row) => [row.id, row]));
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
    internal: boolean;
  },
  allowed: boolean,
): Promise<void> {
  await tx.query(
    `INSERT INTO ${allowed ? 'downloads' : 'download_refusals'} (id, deal_room_id, document_id, link_id, viewer_id, at, internal)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      download.id,
      download.dealRoomId,
      download.documentId,
      download.linkId,
      download.viewerId,
      download.at,
      download.internal,
    ],
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
  /** The email as lists compare it (core/email-entries.ts); '' for an anonymous viewer. */
  emailKey: string;
}

/**
 * Inserts the viewers that are new, then locks them all, in id order; each says whether it is
 * the team's own (internal): the email of one of the team's users, or of one of its internal
 * domains, as the team is now.
 */
export async function insertAndLockViewers(
  tx: Queryable,
  viewers: readonly ViewerKey[],
  now: Date,
): Promise<
  {
    id: string;
    deal_room_id: string;
    identity: string;
    total_views: number;
    last_viewed_at: Date | null;
    internal: boolean;
  }[]
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
    `SELECT v.id, v.deal_room_id, v.identity, v.total_views, v.last_viewed_at,
            (t.email_key <> '' AND (
              substr(t.email_key, strpos(t.email_key, '@')) = ANY (tm.internal_domains)
              OR EXISTS (SELECT 1 FROM users u
                          WHERE lower(u.email) IN (t.email_key, t.email) AND u.team_id = r.team_id))) AS internal
       FROM viewers v JOIN unnest($1::uuid[], $2::text[], $3::text[], $4::text[]) AS t(room, identity, email, email_key)
            ON v.deal_room_id = t.room AND v.identity = t.identity
       JOIN deal_rooms r ON r.id = v.deal_room_id JOIN teams tm ON tm.id = r.team_id
      ORDER BY v.id FOR UPDATE OF v`,
    [rooms, identities, viewers.map((v) => v.email), viewers.map((v) => v.emailKey)],
  );
}

/** Active seconds read on a page of a view. */
export interface ViewPageSeconds {
  viewId: string;
  page: number;
  seconds: number;
}

/**
 * Adds reported active seconds to views' pages; returns the pages read for the first time in
 * their view (their `views` count in the page figures grows by one), as `viewId/page`.
 */
export async function addViewPages(tx: Queryable, pages: readonly ViewPageSeconds[]): Promise<Set<string>> {
  if (pages.length === 0) return new Set();
  const rows = await tx.query<{ view_id: string; page: number; fresh: boolean }>(
    `INSERT INTO view_pages (view_id, page, active_seconds)
     SELECT view_id, page, seconds FROM unnest($1::uuid[], $2::int[], $3::int[]) AS p(view_id, page, seconds)
      ORDER BY 1, 2
     ON CONFLICT (view_id, page) DO UPDATE SET active_seconds = view_pages.active_seconds + EXCLUDED.active_seconds
     RETURNING view_id, page, (xmax = 0) AS fresh`,
    [pages.map((p) => p.viewId), pages.map((p) => p.page), pages.map((p) => p.seconds)],
  );
  return new Set(rows.filter((r) => r.fresh).map((r) => `${r.view_id}/${r.page}`));
}

/** Views' reports: their durations as they are now, reported at `at`; the final ones completed. */
export async function recordReports(
  tx: Queryable,
  reports: readonly {
    viewId: string;
    durationSeconds: number;
    completed: boolean;
    reportId?: string | undefined;
  }[],
  at: Date,
): Promise<void> {
  if (reports.length === 0) return;
  await tx.query(
    `UPDATE views v SET duration_seconds = r.duration, last_report_at = $4,
            completed_at = CASE WHEN r.completed THEN $4 ELSE v.completed_at END,
            last_report_id = coalesce(r.report_id, v.last_report_id)
       FROM unnest($1::uuid[], $2::int[], $3::boolean[], $5::text[]) AS r(id, duration, completed, report_id)
      WHERE v.id = r.id`,
    [
      reports.map((r) => r.viewId),
      reports.map((r) => r.durationSeconds),
      reports.map((r) => r.completed),
      at,
      reports.map((r) => r.reportId ?? null),
    ],
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

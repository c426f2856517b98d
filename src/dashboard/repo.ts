import type { Queryable } from '../db/database.ts';
import { NEWEST_FILE_JOIN } from '../documents/newest-file.ts';
import type { LinkRow } from '../links/repo.ts';
import type { ViewerRow } from '../viewers/repo.ts';

/**
 * The dashboard's reads. Every one names the team: a room, document, link, viewer, key or
 * endpoint of another team is simply not found, and what belongs to it reads as empty,
 * whatever id is sent and whatever the route looked up before.
 */

/** SQL: the room whose id is `room` is the team `team`'s (both placeholders or columns). */
export const roomOfTeam = (room: string, team: string) =>
  `EXISTS (SELECT 1 FROM deal_rooms own WHERE own.id = ${room} AND own.team_id = ${team})`;

export interface RoomListRow {
  id: string;
  name: string;
  status: 'active' | 'archived';
  created_at: Date;
  views_30d: number;
  viewers_30d: number;
  last_activity: Date | null;
}

export async function teamRooms(
  db: Queryable,
  teamId: string,
  filter: { q: string; status: 'active' | 'archived' | 'all'; since: Date; limit: number; offset: number },
): Promise<{ rows: RoomListRow[]; total: number }> {
  const where = `r.team_id = $1 AND ($2 = '' OR r.name ILIKE '%' || $2 || '%') AND ($3 = 'all' OR r.status = $3)`;
  const params = [teamId, filter.q.replace(/[\\%_]/g, (c) => `\\${c}`), filter.status];
  const rows = await db.query<RoomListRow>(
    `SELECT r.id, r.name, r.status, r.created_at,
            coalesce(d.views, 0)::int AS views_30d, coalesce(d.viewers, 0)::int AS viewers_30d,
            (SELECT max(v.last_viewed_at) FROM viewers v WHERE v.deal_room_id = r.id AND v.total_views > 0) AS last_activity
       FROM deal_rooms r
       LEFT JOIN LATERAL (SELECT sum(views) AS views, sum(latest_viewers) AS viewers FROM room_slots
                           WHERE deal_room_id = r.id AND slot >= $4) d ON true
      WHERE ${where}
      ORDER BY r.updated_at DESC, r.id LIMIT $5 OFFSET $6`,
    [...params, filter.since, filter.limit, filter.offset],
  );
  const [count] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM deal_rooms r WHERE ${where}`,
    params,
  );
  return { rows, total: count?.n ?? 0 };
}

export interface RoomRow {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  created_at: Date;
  documents: number;
  links: number;
  viewers: number;
  views: number;
  first_view_at: Date | null;
}

export async function teamRoom(db: Queryable, teamId: string, roomId: string): Promise<RoomRow | undefined> {
  const [row] = await db.query<RoomRow>(
    `SELECT r.id, r.name, r.description, r.status, r.created_at,
            (SELECT count(*)::int FROM documents d WHERE d.deal_room_id = r.id) AS documents,
            (SELECT count(*)::int FROM links l WHERE l.deal_room_id = r.id) AS links,
            r.unique_viewers::int AS viewers, r.total_views::int AS views, r.first_view_at
       FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2`,
    [roomId, teamId],
  );
  return row;
}

export interface DayFigures {
  visits: number;
  views: number;
  duration: number;
  viewers: number;
  downloads: number;
}

/**
 * A room's figures per day of a timezone, from its 15-minute slots: `starts` are the moments
 * the days begin, oldest first (the zone's midnights, each a slot boundary); the last day runs
 * on without end, so a view stamped a few minutes ahead counts today. O(slots in the period).
 */
export async function roomZoneDays(
  db: Queryable,
  teamId: string,
  roomId: string,
  starts: readonly Date[],
): Promise<DayFigures[]> {
  const rows = await db.query<DayFigures & { i: number }>(
    `SELECT width_bucket(slot, $2::timestamptz[]) AS i, sum(visits)::int AS visits, sum(views)::int AS views,
            sum(duration_seconds)::float8 AS duration, sum(latest_viewers)::int AS viewers,
            sum(downloads)::int AS downloads
       FROM room_slots WHERE deal_room_id = $1 AND slot >= $3 AND ${roomOfTeam('$1', '$4')} GROUP BY 1`,
    [roomId, starts, starts[0], teamId],
  );
  const days = starts.map(() => ({ visits: 0, views: 0, duration: 0, viewers: 0, downloads: 0 }));
  for (const { i, ...figures } of rows) days[i - 1] = figures;
  return days;
}

export interface DocumentListRow {
  id: string;
  name: string;
  display_name: string | null;
  status: 'draft' | 'published' | 'archived';
  position: number;
  page_count: number;
  download_override: boolean | null;
  total_views: number;
  file_type: string | null;
  size_bytes: number | null;
  /** The file's version, and its pages drawn so far (the rest are being drawn). */
  version: number | null;
  pages_ready: number | null;
}

export async function roomDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<DocumentListRow[]> {
  return db.query<DocumentListRow>(
    `SELECT d.id, d.name, d.display_name, d.status, d.position, d.page_count, d.download_override,
            d.total_views::int AS total_views, f.content_type AS file_type, f.size_bytes::float8 AS size_bytes,
            f.version, f.pages_ready
       FROM documents d ${NEWEST_FILE_JOIN}
      WHERE d.deal_room_id = $1 AND ${roomOfTeam('$1', '$2')} ORDER BY d.position, d.created_at, d.id`,
    [roomId, teamId],
  );
}

export async function teamDocument(
  db: Queryable,
  teamId: string,
  documentId: string,
): Promise<(DocumentListRow & { deal_room_id: string; room_name: string }) | undefined> {
  const [row] = await db.query<DocumentListRow & { deal_room_id: string; room_name: string }>(
    `SELECT d.id, d.name, d.display_name, d.status, d.position, d.page_count, d.download_override,
            d.total_views::int AS total_views, f.content_type AS file_type, f.size_bytes::float8 AS size_bytes,
            f.version, f.pages_ready, d.deal_room_id, r.name AS room_name
       FROM documents d JOIN deal_rooms r ON r.id = d.deal_room_id
       ${NEWEST_FILE_JOIN}
      WHERE d.id = $1 AND r.team_id = $2`,
    [documentId, teamId],
  );
  return row;
}

/** A version of a document's file with what was read of it: its views, and per page the views and time. */
export interface VersionRow {
  version: number;
  uploaded_at: Date;
  content_type: string;
  size_bytes: number;
  page_count: number;
  pages_ready: number;
  views: number;
  pages: { page: number; views: number; seconds: number }[];
}

/** Every version of a document's file, newest first, with its own figures (from the views that read it). */
export async function documentVersions(
  db: Queryable,
  teamId: string,
  documentId: string,
): Promise<VersionRow[]> {
  const rows = await db.query<Omit<VersionRow, 'pages'> & { pages: VersionRow['pages'] | null }>(
    `SELECT dv.version, dv.uploaded_at, dv.content_type, dv.size_bytes::float8 AS size_bytes, dv.page_count,
            dv.pages_ready,
            (SELECT count(*)::int FROM views v WHERE v.version_id = dv.id AND NOT v.internal) AS views,
            (SELECT json_agg(json_build_object('page', p.page, 'views', p.views, 'seconds', p.seconds) ORDER BY p.page)
               FROM (SELECT vp.page, count(*)::int AS views, sum(vp.active_seconds)::int AS seconds
                       FROM view_pages vp JOIN views v ON v.id = vp.view_id
                      WHERE v.version_id = dv.id AND NOT v.internal AND vp.active_seconds > 0
                        AND vp.page <= dv.page_count
                      GROUP BY vp.page) p) AS pages
       FROM document_versions dv
      WHERE dv.document_id = $1
        AND EXISTS (SELECT 1 FROM documents d WHERE d.id = $1 AND ${roomOfTeam('d.deal_room_id', '$2')})
      ORDER BY dv.version DESC`,
    [documentId, teamId],
  );
  return rows.map((row) => ({ ...row, pages: row.pages ?? [] }));
}

/** A link as the API lists it, with the settings the dashboard shows. */
export interface LinkListRow extends LinkRow {
  deal_room_id: string;
  allow_download: boolean;
  watermark: boolean;
  all_documents: boolean;
  document_ids: string[];
  verify_email: boolean;
  allow_list: string[];
  block_list: string[];
  agreement: string | null;
}

const LINK = `l.id, l.deal_room_id, l.name, l.short_id, l.enabled, l.requires_email, l.password_hash IS NOT NULL AS has_password,
  l.expires_at, l.allow_download, l.watermark, l.all_documents, l.total_clicks::int AS total_clicks, l.created_at,
  l.verify_email, l.allow_list, l.block_list, l.agreement,
  coalesce((SELECT array_agg(ld.document_id::text) FROM link_documents ld WHERE ld.link_id = l.id), '{}') AS document_ids`;

export async function roomLinks(db: Queryable, teamId: string, roomId: string): Promise<LinkListRow[]> {
  return db.query<LinkListRow>(
    `SELECT ${LINK} FROM links l WHERE l.deal_room_id = $1 AND ${roomOfTeam('$1', '$2')}
      ORDER BY l.created_at DESC, l.id`,
    [roomId, teamId],
  );
}

export async function teamLink(
  db: Queryable,
  teamId: string,
  linkId: string,
): Promise<LinkListRow | undefined> {
  const [row] = await db.query<LinkListRow>(
    `SELECT ${LINK} FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id WHERE l.id = $1 AND r.team_id = $2`,
    [linkId, teamId],
  );
  return row;
}

/** A viewer as the read API lists it, and whether a visit of theirs proved the email with a code. */
export type ViewerListRow = ViewerRow & { verified: boolean };

const VERIFIED = 'EXISTS (SELECT 1 FROM visits s WHERE s.viewer_id = v.id AND s.verified) AS verified';

/** The room's viewers as the read API orders them (latest view first), optionally those whose email starts so. */
export async function roomViewers(
  db: Queryable,
  teamId: string,
  roomId: string,
  filter: { q: string; limit: number; offset: number },
): Promise<ViewerListRow[]> {
  // The page first, then whether each of its viewers is verified: a probe per row shown,
  // whatever share of the room's visits is verified.
  return db.query<ViewerListRow>(
    `SELECT v.*, ${VERIFIED}
       FROM (SELECT v.id, v.email, v.name, v.first_viewed_at, v.last_viewed_at, v.total_views,
                    v.total_duration_seconds::float8 AS total_duration_seconds, v.documents_viewed,
                    coalesce(l.name, '') AS link_name
               FROM viewers v LEFT JOIN links l ON l.id = v.last_link_id
              WHERE v.deal_room_id = $1 AND v.total_views > 0 AND ($2 = '' OR lower(v.email) LIKE lower($2) || '%')
                AND ${roomOfTeam('$1', '$5')}
              ORDER BY v.last_viewed_at DESC, v.id LIMIT $3 OFFSET $4) v
      ORDER BY v.last_viewed_at DESC, v.id`,
    [roomId, filter.q.replace(/[\\%_]/g, (c) => `\\${c}`), filter.limit, filter.offset, teamId],
  );
}

export async function teamViewer(
  db: Queryable,
  teamId: string,
  viewerId: string,
): Promise<(ViewerListRow & { deal_room_id: string; room_name: string }) | undefined> {
  const [row] = await db.query<ViewerListRow & { deal_room_id: string; room_name: string }>(
    `SELECT v.id, v.email, v.name, v.first_viewed_at, v.last_viewed_at, v.total_views,
            v.total_duration_seconds::float8 AS total_duration_seconds, v.documents_viewed, coalesce(l.name, '') AS link_name,
            v.deal_room_id, r.name AS room_name, ${VERIFIED}
       FROM viewers v JOIN deal_rooms r ON r.id = v.deal_room_id LEFT JOIN links l ON l.id = v.last_link_id
      WHERE v.id = $1 AND r.team_id = $2`,
    [viewerId, teamId],
  );
  return row;
}

export async function teamKey(db: Queryable, teamId: string, keyId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM api_keys WHERE id = $1 AND team_id = $2', [keyId, teamId]);
  return rows.length > 0;
}

export async function teamDeadLetter(
  db: Queryable,
  teamId: string,
  deadLetterId: string,
): Promise<string | undefined> {
  const [row] = await db.query<{ endpoint_id: string }>(
    `SELECT d.endpoint_id FROM webhook_dead_letters dl JOIN webhook_deliveries d ON d.id = dl.delivery_id
       JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE dl.id = $1 AND e.team_id = $2`,
    [deadLetterId, teamId],
  );
  return row?.endpoint_id;
}

/** Someone who came through a link: their visits through it, the last one, whether of the team. */
export interface LinkVisitorRow {
  id: string;
  email: string | null;
  name: string | null;
  visits: number;
  last_at: Date;
  internal: boolean;
}

/**
 * The people who came through a link, most recent first (at most `limit`), each with their
 * visits through it. The link's visits are walked newest first, one step per person not yet
 * met (migration 020's index), so the page reads about `limit` visits however many the link
 * has; each person's visits are then counted through their own (a person is one room's).
 */
export async function linkVisitors(
  db: Queryable,
  teamId: string,
  linkId: string,
  limit: number,
): Promise<LinkVisitorRow[]> {
  return db.query(
    `WITH RECURSIVE walk AS (
       (SELECT s.at, s.id, s.viewer_id, ARRAY[s.viewer_id] AS met FROM visits s
         WHERE s.link_id = $1
           AND EXISTS (SELECT 1 FROM links l WHERE l.id = $1 AND ${roomOfTeam('l.deal_room_id', '$3')})
         ORDER BY s.at DESC, s.id DESC LIMIT 1)
       UNION ALL
       SELECT n.at, n.id, n.viewer_id, w.met || n.viewer_id
         FROM walk w, LATERAL (
           SELECT s.at, s.id, s.viewer_id FROM visits s
            WHERE s.link_id = $1 AND (s.at, s.id) < (w.at, w.id) AND s.viewer_id <> ALL (w.met)
            ORDER BY s.at DESC, s.id DESC LIMIT 1) n
        WHERE cardinality(w.met) < $2
     )
     SELECT v.id, nullif(v.email, '') AS email, nullif(v.name, '') AS name, c.visits, walk.at AS last_at,
            c.internal
       FROM walk JOIN viewers v ON v.id = walk.viewer_id,
            LATERAL (SELECT count(*)::int AS visits, bool_or(s.internal) AS internal FROM visits s
                      WHERE s.viewer_id = walk.viewer_id AND s.link_id = $1) c
      ORDER BY walk.at DESC, v.id`,
    [linkId, limit, teamId],
  );
}

import type { Queryable } from '../db/database.ts';
import { roomOfTeam } from './repo.ts';

/*
 * What the team reads of what happened: a viewer's timeline, the live feeds, the team's own
 * visits and the refused downloads of a room. Each names the team (repo.ts roomOfTeam).
 */

export interface TimelineRow {
  /**
   * `agreed` and `refused` are the gate's: an agreement accepted, an email refused by the
   * link's lists; `download_refused`: a download the link or document did not allow.
   */
  kind: 'visit' | 'view' | 'download' | 'download_refused' | 'agreed' | 'refused';
  at: Date;
  /** A visit or gate step whose email was proved with a code. */
  verified: boolean;
  /** The team's own (a user's email, an internal domain): counted in no figure. */
  internal: boolean;
  link_name: string;
  document_name: string | null;
  duration_seconds: number | null;
  pages: number | null;
  completed: boolean | null;
}

/**
 * One viewer's visits, views (with their pages read) and downloads, and the gate's records of
 * their email in the room (agreements accepted, refusals), newest first.
 */
export async function viewerTimeline(
  db: Queryable,
  teamId: string,
  viewerId: string,
  limit: number,
): Promise<TimelineRow[]> {
  return db.query<TimelineRow>(
    `SELECT * FROM (
       SELECT 'visit' AS kind, vi.at, vi.verified, vi.internal, l.name AS link_name, NULL AS document_name,
              NULL::int AS duration_seconds, NULL::int AS pages, NULL::boolean AS completed
         FROM visits vi JOIN links l ON l.id = vi.link_id WHERE vi.viewer_id = $1
       UNION ALL
       SELECT g.kind, g.at, g.verified, false, l.name, NULL, NULL, NULL, NULL
         FROM viewers w JOIN gate_records g ON g.deal_room_id = w.deal_room_id AND lower(g.email) = lower(w.email)
         JOIN links l ON l.id = g.link_id
        WHERE w.id = $1 AND w.email <> ''
       UNION ALL
       SELECT 'view', v.started_at, false, v.internal, l.name, coalesce(d.display_name, d.name), v.duration_seconds,
              (SELECT count(*)::int FROM view_pages p WHERE p.view_id = v.id AND p.active_seconds > 0),
              v.completed_at IS NOT NULL
         FROM views v JOIN links l ON l.id = v.link_id JOIN documents d ON d.id = v.document_id WHERE v.viewer_id = $1
       UNION ALL
       SELECT 'download', dl.at, false, dl.internal, l.name, coalesce(d.display_name, d.name), NULL, NULL, NULL
         FROM downloads dl JOIN links l ON l.id = dl.link_id JOIN documents d ON d.id = dl.document_id
        WHERE dl.viewer_id = $1
       UNION ALL
       SELECT 'download_refused', x.at, false, x.internal, l.name, coalesce(d.display_name, d.name), NULL, NULL, NULL
         FROM download_refusals x JOIN links l ON l.id = x.link_id JOIN documents d ON d.id = x.document_id
        WHERE x.viewer_id = $1
     ) t
     WHERE EXISTS (SELECT 1 FROM viewers w WHERE w.id = $1 AND ${roomOfTeam('w.deal_room_id', '$3')})
     ORDER BY at DESC LIMIT $2`,
    [viewerId, limit, teamId],
  );
}

export interface ActivityRow {
  kind: 'visit' | 'view' | 'download' | 'download_refused' | 'refused';
  at: Date;
  who: string;
  what: string;
  /** The room it happened in (the team's Activity page names it). */
  room_id: string;
  room: string;
}

/** How the feeds name the viewer `w`: the email given, or none. */
const WHO = `coalesce(nullif(w.email, ''), 'Anonymous viewer')`;

/**
 * The latest `$3` events of a table (visits, downloads) since `$2` across the links of the
 * feed's `rooms`, the team's own left out: each link's walked newest first by its (link, time)
 * index, so the cost is the number of links, not of events.
 */
function newestOfEachLink(table: 'visits' | 'downloads', ...columns: string[]): string {
  return `(SELECT x.*, l.name AS link_name, l.deal_room_id
             FROM rooms JOIN links l ON l.deal_room_id = rooms.id
             JOIN LATERAL (SELECT ${['at', 'viewer_id', ...columns].join(', ')} FROM ${table}
                            WHERE link_id = l.id AND at >= $2 AND NOT internal
                            ORDER BY at DESC LIMIT $3) x ON true
            ORDER BY x.at DESC LIMIT $3)`;
}

/**
 * What happened in a room, or in every room of a team, since `since` (the live feeds),
 * newest first: every visit, whether or not it opened a document; every download, whenever
 * its viewer last opened a document; the views of the viewers who opened a document since
 * then; refused downloads and emails the links' lists refused. Views start from the viewers'
 * own index (latest view first), visits and downloads from each link's newest first, so it
 * costs the same in a room of a million views as in an empty one. The team's own activity is
 * left out.
 */
export async function recentActivity(
  db: Queryable,
  scope: { teamId: string; roomId?: string | undefined },
  since: Date,
  limit: number,
): Promise<ActivityRow[]> {
  const rooms = `(SELECT id FROM deal_rooms WHERE team_id = $1::uuid${scope.roomId ? ' AND id = $4::uuid' : ''})`;
  return db.query<ActivityRow>(
    `WITH rooms AS ${rooms}, recent AS (
       SELECT w.id, w.deal_room_id, ${WHO} AS who
         FROM rooms JOIN LATERAL (
           SELECT * FROM viewers v
            WHERE v.deal_room_id = rooms.id AND v.total_views > 0 AND v.last_viewed_at >= $2
            ORDER BY v.last_viewed_at DESC LIMIT $3) w ON true
        ORDER BY w.last_viewed_at DESC LIMIT $3)
     SELECT t.*, dr.name AS room FROM (
       SELECT 'view' AS kind, v.started_at AS at, r.who, coalesce(d.display_name, d.name) AS what,
              r.deal_room_id AS room_id
         FROM recent r JOIN views v ON v.viewer_id = r.id AND v.started_at >= $2 AND NOT v.internal
         JOIN documents d ON d.id = v.document_id
       UNION ALL
       SELECT 'visit', vi.at, ${WHO}, vi.link_name, vi.deal_room_id
         FROM ${newestOfEachLink('visits')} vi JOIN viewers w ON w.id = vi.viewer_id
       UNION ALL
       SELECT 'download', dl.at, ${WHO}, coalesce(d.display_name, d.name), dl.deal_room_id
         FROM ${newestOfEachLink('downloads', 'document_id')} dl
         JOIN viewers w ON w.id = dl.viewer_id JOIN documents d ON d.id = dl.document_id
       UNION ALL
       SELECT * FROM (SELECT 'download_refused' AS kind, x.at,
                             ${WHO} AS who,
                             coalesce(d.display_name, d.name) AS what, x.deal_room_id
                        FROM rooms JOIN download_refusals x ON x.deal_room_id = rooms.id
                        JOIN viewers w ON w.id = x.viewer_id JOIN documents d ON d.id = x.document_id
                       WHERE x.at >= $2 AND NOT x.internal
                       ORDER BY x.at DESC LIMIT $3) refused_downloads
       UNION ALL
       SELECT * FROM (SELECT 'refused' AS kind, g.at, coalesce(g.email, 'Anonymous viewer') AS who,
                             l.name AS what, g.deal_room_id
                        FROM rooms JOIN gate_records g ON g.deal_room_id = rooms.id JOIN links l ON l.id = g.link_id
                       WHERE g.at >= $2 AND g.kind = 'refused'
                       ORDER BY g.at DESC LIMIT $3) refusals
     ) t JOIN deal_rooms dr ON dr.id = t.room_id
     ORDER BY t.at DESC LIMIT $3`,
    [scope.teamId, since, limit, ...(scope.roomId ? [scope.roomId] : [])],
  );
}

/** The team's own people who came into a room lately (internal visits), latest first. */
export async function internalVisitors(
  db: Queryable,
  teamId: string,
  roomId: string,
  limit: number,
): Promise<{ id: string; email: string; visits: number; last_at: Date }[]> {
  return db.query(
    `SELECT w.id, w.email, v.visits, v.last_at
       FROM (SELECT viewer_id, count(*)::int AS visits, max(at) AS last_at FROM visits
              WHERE deal_room_id = $1 AND internal AND ${roomOfTeam('$1', '$3')}
              GROUP BY viewer_id ORDER BY max(at) DESC LIMIT $2) v
       JOIN viewers w ON w.id = v.viewer_id
      ORDER BY v.last_at DESC, w.id`,
    [roomId, limit, teamId],
  );
}

/** Downloads refused in a room since a time (the team's own left out). */
export async function refusedDownloads(
  db: Queryable,
  teamId: string,
  roomId: string,
  since: Date,
): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM download_refusals
      WHERE deal_room_id = $1 AND at >= $2 AND NOT internal AND ${roomOfTeam('$1', '$3')}`,
    [roomId, since, teamId],
  );
  return row?.n ?? 0;
}

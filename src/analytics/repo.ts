import { isoDay } from '../core/time.ts';
import type { Queryable } from '../db/database.ts';

/** The room's kept all-time figures, when it is the team's. */
export interface RoomFigures {
  created_at: Date;
  first_view_at: Date | null;
  total_views: number;
  unique_viewers: number;
  duration_sum: number;
  total_downloads: number;
  /** Changes with every write to a figure of the room, or to a name its analytics show. */
  figures_version: string;
}

export async function roomFigures(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<RoomFigures | undefined> {
  const rows = await db.query<RoomFigures>(
    `SELECT created_at, first_view_at, total_views, unique_viewers, duration_sum::float8 AS duration_sum,
            total_downloads, figures_version::text AS figures_version
       FROM deal_rooms WHERE id = $1 AND team_id = $2`,
    [roomId, teamId],
    // A primary-key lookup, the whole of a read whose body is kept: planned once per connection.
    { prepared: 'analytics_room' },
  );
  return rows[0];
}

export interface Ranked {
  id: string;
  name: string;
  count: number;
  duration: number;
}

export interface PeriodFigures {
  /** [day, views] per day with views; days after today are folded into today by the caller. */
  daily: [string, number][] | null;
  totals: { views: number; duration: number; viewers: number; downloads: number };
  top_documents: Ranked[] | null;
  top_links: Ranked[] | null;
}

/**
 * The room, only when it is the team's: every part of the query below reads the room's
 * figures through it, so isolation holds inside the query. $1 room id, $2 team id, $3 the
 * period's first day.
 */
const TEAM_ROOM = '(SELECT r.id FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2)';

const DAILY = `(SELECT json_agg(json_build_array(to_char(day, 'YYYY-MM-DD'), views))
                  FROM room_daily WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date AND views > 0)`;

/** Names compare by code point: the "C" collation orders UTF-8 bytes, which is the same. */
const ranked = (source: string) =>
  `(SELECT json_agg(json_build_object('id', id, 'name', name, 'count', count, 'duration', duration)
                    ORDER BY count DESC, name COLLATE "C", id)
      FROM (SELECT * FROM (${source}) t WHERE count > 0 ORDER BY count DESC, name COLLATE "C", id LIMIT $4) top)`;

/**
 * A period of whole days from $3 on, read from the per-day rollups: O(days) rows, and
 * O(days x documents or links) for the top lists, whatever the number of events.
 */
export async function periodFigures(
  db: Queryable,
  teamId: string,
  roomId: string,
  firstDay: Date,
  limit: number,
): Promise<PeriodFigures> {
  const rows = await db.query<PeriodFigures>(
    `SELECT ${DAILY} AS daily,
            (SELECT json_build_object('views', coalesce(sum(views), 0), 'duration', coalesce(sum(duration_seconds), 0),
                                      'viewers', coalesce(sum(latest_viewers), 0), 'downloads', coalesce(sum(downloads), 0))
               FROM room_daily WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date) AS totals,
            ${ranked(
              `SELECT t.document_id AS id, d.name, t.count, t.duration
                 FROM (SELECT document_id, sum(views) AS count, sum(duration_seconds) AS duration
                         FROM room_daily_views WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date
                        GROUP BY document_id) t
                 JOIN documents d ON d.id = t.document_id AND d.deal_room_id = ${TEAM_ROOM}`,
            )} AS top_documents,
            ${ranked(
              `SELECT t.link_id AS id, l.name, t.count, 0 AS duration
                 FROM (SELECT link_id, sum(visits) AS count
                         FROM room_daily_visits WHERE deal_room_id = ${TEAM_ROOM} AND day >= $3::date
                        GROUP BY link_id) t
                 JOIN links l ON l.id = t.link_id AND l.deal_room_id = ${TEAM_ROOM}`,
            )} AS top_links`,
    [roomId, teamId, isoDay(firstDay), limit],
  );
  return rows[0] as PeriodFigures;
}

/**
 * All time: every view is on or after the first day (the room's creation day or its first
 * view's, whichever is earlier), so the kept all-time figures per room and per document
 * answer directly, in O(documents + links) rows. Visits and downloads may predate the first
 * day; what the rollups hold before it is taken off.
 */
export async function allTimeFigures(
  db: Queryable,
  teamId: string,
  roomId: string,
  firstDay: Date,
  limit: number,
): Promise<Omit<PeriodFigures, 'totals'> & { downloads_before: number }> {
  const rows = await db.query<Omit<PeriodFigures, 'totals'> & { downloads_before: number }>(
    `SELECT ${DAILY} AS daily,
            (SELECT coalesce(sum(downloads), 0)::int FROM room_daily
              WHERE deal_room_id = ${TEAM_ROOM} AND day < $3::date) AS downloads_before,
            ${ranked(
              `SELECT id, name, total_views AS count, duration_sum AS duration
                 FROM documents WHERE deal_room_id = ${TEAM_ROOM}`,
            )} AS top_documents,
            ${ranked(
              `SELECT l.id, l.name, l.total_clicks - coalesce(
                        (SELECT sum(x.visits) FROM room_daily_visits x
                          WHERE x.deal_room_id = l.deal_room_id AND x.link_id = l.id AND x.day < $3::date), 0) AS count,
                      0 AS duration
                 FROM links l WHERE l.deal_room_id = ${TEAM_ROOM}`,
            )} AS top_links`,
    [roomId, teamId, isoDay(firstDay), limit],
  );
  return rows[0] as Omit<PeriodFigures, 'totals'> & { downloads_before: number };
}

import type { Queryable } from '../db/database.ts';
import type { Rows } from './rows.ts';

/**
 * The one writer of every derived figure (with contents.ts, what rooms hold, removals.ts,
 * events taken off, page-readings.ts, pages read, and imported.ts, an import's forms of these
 * statements): room counters, clicks per link, all-time views per
 * document, each viewer's engagement, the per-day rollups (room_daily, room_daily_views,
 * room_daily_visits) and each room's 15-minute slots (room_slots, the dashboard's days in a
 * team's timezone). Each function applies a set of events as deltas, in the caller's
 * transaction: for one live event that touches O(1) rows; for an import the same statements
 * read its staging tables. Call them after the event rows themselves are inserted (a
 * viewer's distinct documents are counted from their views).
 *
 * Lock order, the same for every writer so concurrent ones cannot deadlock: viewers, each
 * in a statement before the room's, then the room's rows in one last statement (they are
 * the ones every writer of a busy room waits for, so they are held for the shortest time).
 * In that statement PostgreSQL runs the main UPDATE of the room's own row first and the
 * data-modifying WITH clauses it does not read after it, so the room's row is taken before
 * its per-day and per-document rows, the same in every writer. Within a table, rows are
 * taken in key order (the ORDER BYs below), so two batches of views that share rows take
 * them in the same order.
 *
 * Every statement that changes a room's figures also adds one to its `figures_version`,
 * as does any change to its contents (a document's or link's name is in its analytics): a
 * process keeps a room's rendered analytics only while the version it read them at holds.
 */

/** The UTC day of a timestamp expression. */
export const day = (at: string) => `((${at}) AT TIME ZONE 'UTC')::date`;

/** The 15-minute slot (UTC) of a timestamp expression: every timezone's midnight starts one. */
export const slot = (at: string) => `date_bin('15 minutes', ${at}, timestamptz '2000-01-01 00:00+00')`;

/**
 * `slots: false`: the caller writes these events' per-slot rows itself, with those of its
 * other events, in one statement (an import: aggregates/imported.ts).
 */
export interface SlotsOption {
  slots?: boolean;
}

/** A viewer's latest view moving between slots: -1 where it was, +1 where it is. */
export interface LatestMove {
  room: string;
  slot: Date;
  latest: number;
  added: number;
}

/**
 * The statement's CTE `moves` (room, slot, day, latest, added), read from `movesParams` placed
 * after its `n` parameters of its own.
 */
export function movesCte(n: number): string {
  return `moves AS (
       SELECT room, slot, ${day('slot')} AS day, latest, added
         FROM unnest($${n + 1}::uuid[], $${n + 2}::timestamptz[], $${n + 3}::int[], $${n + 4}::int[])
           AS m(room, slot, latest, added)
     )`;
}

/** The parameters `movesCte` reads, as four arrays. */
export function movesParams(moves: readonly LatestMove[]): unknown[] {
  return [
    moves.map((m) => m.room),
    moves.map((m) => m.slot),
    moves.map((m) => m.latest),
    moves.map((m) => m.added),
  ];
}

/**
 * The two rollups a room's figures are kept in by time: per UTC day (room_daily, the read
 * API's) and per 15-minute slot (room_slots, the dashboard's days in a timezone). A figure
 * that counts by time is written to both by the same statement, made for each here.
 */
export const TIME_ROLLUPS = [
  { cte: 'per_day', table: 'room_daily', key: 'day', of: day },
  { cte: 'per_slot', table: 'room_slots', key: 'slot', of: slot },
] as const;

/** Views started (with the duration they already have: 0 live, the whole one on import). */
export async function applyViewsStarted(tx: Queryable, rows: Rows): Promise<void> {
  const room = await applyViewersOfViews(tx, rows);
  await room();
}

/**
 * The first half of applyViewsStarted: each viewer's figures. It returns the second half,
 * the per-document, per-day and room figures, for the caller to run as the last statement of
 * its transaction: those rows are the ones every writer of a busy room waits for, so their
 * locks should be held for as short a time as possible (a live view records its events in
 * between). `viewersLocked`: the caller already holds the viewers FOR UPDATE.
 */
export async function applyViewersOfViews(
  tx: Queryable,
  rows: Rows,
  options: { viewersLocked?: boolean } = {},
): Promise<() => Promise<void>> {
  const moves = await viewerFiguresOfViews(tx, rows, options);
  return () => applyRoomViews(tx, rows, moves);
}

/**
 * Each viewer's views in `from`, gathered as three named subqueries: `agg` (how many, their
 * duration, the first), `latest` (the latest view) and `named` (the latest that gave a name).
 */
export const viewerViews = (from: string) => `agg AS (
       SELECT viewer_id, count(*)::int AS n, sum(duration_seconds) AS duration, min(started_at) AS first_at
         FROM ${from} GROUP BY viewer_id
     ), latest AS (
       SELECT DISTINCT ON (viewer_id) viewer_id, started_at, id, link_id
         FROM ${from} ORDER BY viewer_id, started_at DESC, id DESC
     ), named AS (
       SELECT DISTINCT ON (viewer_id) viewer_id, started_at, id, viewer_name
         FROM ${from} WHERE viewer_name <> '' ORDER BY viewer_id, started_at DESC, id DESC
     )`;

/**
 * Each stored viewer's figures, with the views in `rows` added (applyViewersOfViews); the
 * moves of their latest views between slots, for applyRoomViews.
 */
export async function viewerFiguresOfViews(
  tx: Queryable,
  rows: Rows,
  options: { viewersLocked?: boolean } = {},
): Promise<LatestMove[]> {
  const from = `(${rows.sql}) s`;
  // Lock the viewers first, in a statement of its own: the next statement then sees every
  // view committed before the lock was granted, so two concurrent first views of one
  // document by one viewer count it once.
  if (!options.viewersLocked) {
    await tx.query(
      `SELECT 1 FROM viewers WHERE id IN (SELECT DISTINCT viewer_id FROM ${from}) ORDER BY id FOR UPDATE`,
      rows.params,
    );
  }
  return tx.query<LatestMove>(
    `WITH ${viewerViews(from)}, pairs AS (
       SELECT viewer_id, document_id, count(*) AS n FROM ${from} GROUP BY 1, 2
     ), first_seen AS (
       -- A document is new to its viewer when these rows are all the viewer's views of it:
       -- at most n + 1 entries of the (viewer_id, document_id) index for each pair, so a
       -- viewer's thousandth view costs what their first did. A viewer with no view counted
       -- yet (locked above, so none is counted meanwhile) has only these: every pair is new,
       -- with no look-up.
       SELECT p.viewer_id, count(*)::int AS documents
         FROM pairs p JOIN viewers w ON w.id = p.viewer_id
        WHERE w.total_views = 0
           OR (SELECT count(*) FROM (SELECT 1 FROM views v
                                      WHERE v.viewer_id = p.viewer_id AND v.document_id = p.document_id
                                        AND NOT v.internal
                                      LIMIT p.n + 1) seen) = p.n
        GROUP BY 1
     ), cur AS (
       SELECT w.id, w.deal_room_id, w.total_views AS old_views, w.last_viewed_at AS old_last,
              agg.n, agg.duration, agg.first_at,
              w.documents_viewed + coalesce(fs.documents, 0) AS documents,
              (w.last_viewed_at IS NULL OR (l.started_at, l.id) > (w.last_viewed_at, w.last_view_id)) AS newer,
              l.started_at AS last_at, l.id AS last_id, l.link_id AS last_link,
              (nm.id IS NOT NULL AND (w.name_at IS NULL OR (nm.started_at, nm.id) > (w.name_at, w.name_view_id))) AS renamed,
              nm.started_at AS name_at, nm.id AS name_id, nm.viewer_name AS name
         FROM viewers w
         JOIN agg ON agg.viewer_id = w.id
         JOIN latest l ON l.viewer_id = w.id
         LEFT JOIN named nm ON nm.viewer_id = w.id
         LEFT JOIN first_seen fs ON fs.viewer_id = w.id
     ), changed AS (
       UPDATE viewers w SET
              total_views = w.total_views + cur.n,
              total_duration_seconds = w.total_duration_seconds + cur.duration,
              documents_viewed = cur.documents,
              first_viewed_at = least(w.first_viewed_at, cur.first_at),
              last_viewed_at = CASE WHEN cur.newer THEN cur.last_at ELSE w.last_viewed_at END,
              last_view_id = CASE WHEN cur.newer THEN cur.last_id ELSE w.last_view_id END,
              last_link_id = CASE WHEN cur.newer THEN cur.last_link ELSE w.last_link_id END,
              name = CASE WHEN cur.renamed THEN cur.name ELSE w.name END,
              name_at = CASE WHEN cur.renamed THEN cur.name_at ELSE w.name_at END,
              name_view_id = CASE WHEN cur.renamed THEN cur.name_id ELSE w.name_view_id END
         FROM cur WHERE w.id = cur.id
       RETURNING cur.deal_room_id, cur.old_views, cur.old_last, w.last_viewed_at AS new_last
     )
     SELECT deal_room_id AS room, slot, sum(latest)::int AS latest, sum(added)::int AS added
       FROM (SELECT deal_room_id, ${slot('old_last')} AS slot, -1 AS latest, 0 AS added
               FROM changed WHERE old_views > 0
             UNION ALL
             SELECT deal_room_id, ${slot('new_last')}, 1, (old_views = 0)::int FROM changed) m
      GROUP BY 1, 2
     HAVING sum(latest) <> 0 OR sum(added) <> 0`,
    rows.params,
  );
}

/**
 * The second half of applyViewsStarted: the views' per-document, per-day and room figures.
 * A viewer whose latest view moves from one slot (and so perhaps day) to another moves one
 * unit of latest_viewers between them (`moves`); a viewer's first view adds one unique viewer
 * to the room.
 */
export async function applyRoomViews(
  tx: Queryable,
  rows: Rows,
  moves: LatestMove[],
  { slots = true }: SlotsOption = {},
): Promise<void> {
  const from = `(${rows.sql}) s`;
  const { params } = rows;
  const n = params.length;
  await tx.query(
    `WITH ${movesCte(n)}, per_document_day AS (
       INSERT INTO room_daily_views (deal_room_id, day, document_id, views, duration_seconds)
       SELECT deal_room_id, ${day('started_at')}, document_id, count(*), sum(duration_seconds)
         FROM ${from} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
       ON CONFLICT (deal_room_id, day, document_id) DO UPDATE
          SET views = room_daily_views.views + excluded.views,
              duration_seconds = room_daily_views.duration_seconds + excluded.duration_seconds
       RETURNING 1
     ), per_document AS (
       UPDATE documents d SET total_views = d.total_views + a.n, duration_sum = d.duration_sum + a.duration
         FROM (SELECT document_id, count(*)::int AS n, sum(duration_seconds) AS duration
                 FROM ${from} GROUP BY 1 ORDER BY 1) a
        WHERE d.id = a.document_id
       RETURNING 1
     ), ${TIME_ROLLUPS.filter(({ table }) => slots || table !== 'room_slots')
       .map(
         ({ cte, table, key, of }) => `${cte} AS (
       INSERT INTO ${table} (deal_room_id, ${key}, views, duration_seconds, latest_viewers)
       SELECT room, ${key}, sum(n), sum(duration), sum(latest)
         FROM (SELECT deal_room_id AS room, ${of('started_at')} AS ${key}, count(*) AS n,
                      sum(duration_seconds) AS duration, 0 AS latest
                 FROM ${from} GROUP BY 1, 2
               UNION ALL
               SELECT room, ${key}, 0, 0, latest FROM moves) p
        GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (deal_room_id, ${key}) DO UPDATE
          SET views = ${table}.views + excluded.views,
              duration_seconds = ${table}.duration_seconds + excluded.duration_seconds,
              latest_viewers = ${table}.latest_viewers + excluded.latest_viewers
       RETURNING 1
     )`,
       )
       .join(', ')}
     UPDATE deal_rooms r
        SET total_views = r.total_views + a.n, duration_sum = r.duration_sum + a.duration,
            unique_viewers = r.unique_viewers + coalesce(m.added, 0),
            first_view_at = least(r.first_view_at, a.first_at), figures_version = r.figures_version + 1
       FROM (SELECT deal_room_id, count(*)::int AS n, sum(duration_seconds) AS duration,
                    min(started_at) AS first_at
               FROM ${from} GROUP BY 1 ORDER BY 1) a
       LEFT JOIN (SELECT room, sum(added)::int AS added FROM moves GROUP BY room) m ON m.room = a.deal_room_id
      WHERE r.id = a.deal_room_id`,
    [...params, ...movesParams(moves)],
  );
}

/** Seconds added to one started view's duration (it was completed, or its page reported reading). */
export interface ViewDuration {
  dealRoomId: string;
  documentId: string;
  viewerId: string;
  startedAt: Date;
  addedSeconds: number;
}

/**
 * Started views' durations grow: each viewer's, then the room's, per day and per document.
 * A batch of reports is one call; each row is added in key order.
 */
export async function applyViewDurations(tx: Queryable, durations: readonly ViewDuration[]): Promise<void> {
  const changed = durations.filter((d) => d.addedSeconds !== 0);
  if (changed.length === 0) return;
  const params = [
    changed.map((d) => d.dealRoomId),
    changed.map((d) => d.documentId),
    changed.map((d) => d.viewerId),
    changed.map((d) => d.startedAt),
    changed.map((d) => d.addedSeconds),
  ];
  const from = `unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::timestamptz[], $5::int[])
                  AS d(room, document, viewer, started_at, added)`;
  // The viewers first, in a statement of their own: in one statement the room's row would be
  // locked before them (see the lock order above), against the order of a batch of view
  // starts, which holds its viewers when it reaches the room.
  await tx.query(
    `UPDATE viewers w SET total_duration_seconds = w.total_duration_seconds + a.added
       FROM (SELECT viewer, sum(added)::int AS added FROM ${from} GROUP BY 1 ORDER BY 1) a
      WHERE w.id = a.viewer`,
    params,
  );
  await tx.query(
    `WITH per_document_day AS (
       UPDATE room_daily_views x SET duration_seconds = x.duration_seconds + a.added
         FROM (SELECT room, ${day('started_at')} AS day, document, sum(added)::int AS added
                 FROM ${from} GROUP BY 1, 2, 3 ORDER BY 1, 2, 3) a
        WHERE x.deal_room_id = a.room AND x.day = a.day AND x.document_id = a.document
       RETURNING 1
     ), per_document AS (
       UPDATE documents x SET duration_sum = x.duration_sum + a.added
         FROM (SELECT document, sum(added)::int AS added FROM ${from} GROUP BY 1 ORDER BY 1) a
        WHERE x.id = a.document
       RETURNING 1
     ), ${TIME_ROLLUPS.map(
       ({ cte, table, key, of }) => `${cte} AS (
       UPDATE ${table} x SET duration_seconds = x.duration_seconds + a.added
         FROM (SELECT room, ${of('started_at')} AS ${key}, sum(added)::int AS added
                 FROM ${from} GROUP BY 1, 2 ORDER BY 1, 2) a
        WHERE x.deal_room_id = a.room AND x.${key} = a.${key}
       RETURNING 1
     )`,
     ).join(', ')}
     UPDATE deal_rooms x SET duration_sum = x.duration_sum + a.added, figures_version = x.figures_version + 1
       FROM (SELECT room, sum(added)::int AS added FROM ${from} GROUP BY 1 ORDER BY 1) a
      WHERE x.id = a.room`,
    params,
  );
}

/**
 * Visits: clicks per link, per day and link, per slot, and the room's figures version. `sign`
 * -1 takes removed visits off (their link or room is deleted); the per-day rows they were
 * counted in exist, so the upsert updates.
 */
export async function applyVisits(
  tx: Queryable,
  rows: Rows,
  sign: 1 | -1 = 1,
  { slots = true }: SlotsOption = {},
): Promise<void> {
  const from = `(${rows.sql}) s`;
  const n = `$${rows.params.length + 1}::int`;
  await tx.query(
    `WITH per_link_day AS (
       INSERT INTO room_daily_visits (deal_room_id, day, link_id, visits)
       SELECT deal_room_id, ${day('at')}, link_id, count(*) * ${n} FROM ${from} GROUP BY 1, 2, 3
       ON CONFLICT (deal_room_id, day, link_id) DO UPDATE
          SET visits = room_daily_visits.visits + excluded.visits
       RETURNING 1
     ), ${
       slots
         ? `per_slot AS (
       INSERT INTO room_slots (deal_room_id, slot, visits)
       SELECT deal_room_id, ${slot('at')}, count(*) * ${n} FROM ${from} GROUP BY 1, 2 ORDER BY 1, 2
       ON CONFLICT (deal_room_id, slot) DO UPDATE SET visits = room_slots.visits + excluded.visits
       RETURNING 1
     ), `
         : ''
     }per_link AS (
       UPDATE links l SET total_clicks = l.total_clicks + a.n
         FROM (SELECT link_id, count(*)::int * ${n} AS n FROM ${from} GROUP BY 1 ORDER BY 1) a
        WHERE l.id = a.link_id
       RETURNING 1
     )
     UPDATE deal_rooms r SET figures_version = r.figures_version + 1
      WHERE r.id IN (SELECT deal_room_id FROM ${from})`,
    [...rows.params, sign],
  );
}

/**
 * Downloads (those allowed; a refused download is not one): per day and per room. `sign` -1
 * takes removed downloads off.
 */
export async function applyDownloads(
  tx: Queryable,
  rows: Rows,
  sign: 1 | -1 = 1,
  { slots = true }: SlotsOption = {},
): Promise<void> {
  const from = `(${rows.sql}) s`;
  const n = `$${rows.params.length + 1}::int`;
  await tx.query(
    `WITH per_day AS (
       INSERT INTO room_daily (deal_room_id, day, downloads)
       SELECT deal_room_id, ${day('at')}, count(*) * ${n} FROM ${from} GROUP BY 1, 2
       ON CONFLICT (deal_room_id, day) DO UPDATE SET downloads = room_daily.downloads + excluded.downloads
       RETURNING 1
     )${
       slots
         ? `, per_slot AS (
       INSERT INTO room_slots (deal_room_id, slot, downloads)
       SELECT deal_room_id, ${slot('at')}, count(*) * ${n} FROM ${from} GROUP BY 1, 2
       ON CONFLICT (deal_room_id, slot) DO UPDATE SET downloads = room_slots.downloads + excluded.downloads
       RETURNING 1
     )`
         : ''
     }
     UPDATE deal_rooms r SET total_downloads = r.total_downloads + a.n, figures_version = r.figures_version + 1
       FROM (SELECT deal_room_id, count(*)::int * ${n} AS n FROM ${from} GROUP BY 1) a
      WHERE r.id = a.deal_room_id`,
    [...rows.params, sign],
  );
}

import { DateTime } from 'luxon';
import type { Queryable } from '../db/database.ts';

/** A day of the rooms a user follows, from midnight to midnight in their zone (23 or 25 hours on a change). */
export interface DigestFacts {
  visits: number;
  readers: number;
  newViewers: number;
  returningViewers: number;
  views: number;
  rooms: {
    name: string;
    visits: number;
    readers: number;
    documents: { title: string; views: number; seconds: number; topPage: number | null }[];
  }[];
}

/** The instants a day of a zone starts and ends at. */
export function dayBounds(day: string, zone: string): { from: Date; to: Date } {
  const start = DateTime.fromISO(day, { zone }).startOf('day');
  return { from: start.toJSDate(), to: start.plus({ days: 1 }).toJSDate() };
}

export async function digestFacts(
  db: Queryable,
  o: { userId: string; day: string; zone: string },
): Promise<DigestFacts> {
  const { from, to } = dayBounds(o.day, o.zone);
  const rows = await db.query<{
    name: string;
    visits: number;
    readers: number;
    visitors: number;
    new_viewers: number;
    views: number;
    documents: { title: string; views: number; seconds: number; top_page: number | null }[] | null;
  }>(
    `WITH rooms AS (
       SELECT r.id, r.name FROM room_follows f JOIN deal_rooms r ON r.id = f.deal_room_id
        WHERE f.user_id = $1 AND f.following
     ), vis AS (
       SELECT s.deal_room_id, s.viewer_id FROM visits s JOIN rooms ON rooms.id = s.deal_room_id
        WHERE s.at >= $2 AND s.at < $3 AND NOT s.internal
     ), vw AS (
       SELECT v.id, v.deal_room_id, v.document_id, v.viewer_id, v.duration_seconds
         FROM views v JOIN rooms ON rooms.id = v.deal_room_id
        WHERE v.started_at >= $2 AND v.started_at < $3 AND NOT v.internal
     )
     SELECT rooms.name,
            (SELECT count(*) FROM vis WHERE vis.deal_room_id = rooms.id)::int AS visits,
            (SELECT count(DISTINCT vw.viewer_id) FROM vw WHERE vw.deal_room_id = rooms.id)::int AS readers,
            (SELECT count(DISTINCT vis.viewer_id) FROM vis WHERE vis.deal_room_id = rooms.id)::int AS visitors,
            (SELECT count(DISTINCT vis.viewer_id) FROM vis WHERE vis.deal_room_id = rooms.id
                AND NOT EXISTS (SELECT 1 FROM visits p WHERE p.viewer_id = vis.viewer_id AND p.at < $2))::int
              AS new_viewers,
            (SELECT count(*) FROM vw WHERE vw.deal_room_id = rooms.id)::int AS views,
            (SELECT json_agg(json_build_object('title', t.title, 'views', t.views, 'seconds', t.seconds,
                                               'top_page', t.top_page) ORDER BY t.views DESC, t.title)
               FROM (SELECT coalesce(d.display_name, d.name) AS title, count(*)::int AS views,
                            sum(vw.duration_seconds)::int AS seconds,
                            (SELECT vp.page FROM view_pages vp JOIN vw x ON x.id = vp.view_id
                              WHERE x.document_id = d.id GROUP BY vp.page
                              ORDER BY sum(vp.active_seconds) DESC, vp.page LIMIT 1) AS top_page
                       FROM vw JOIN documents d ON d.id = vw.document_id
                      WHERE vw.deal_room_id = rooms.id
                      GROUP BY d.id, d.display_name, d.name) t) AS documents
       FROM rooms ORDER BY rooms.name`,
    [o.userId, from, to],
  );
  const active = rows.filter((r) => r.visits > 0 || r.views > 0);
  const sum = (f: (r: (typeof rows)[number]) => number) => active.reduce((n, r) => n + f(r), 0);
  const newViewers = sum((r) => r.new_viewers);
  return {
    visits: sum((r) => r.visits),
    readers: sum((r) => r.readers),
    newViewers,
    returningViewers: sum((r) => r.visitors) - newViewers,
    views: sum((r) => r.views),
    rooms: active.map((r) => ({
      name: r.name,
      visits: r.visits,
      readers: r.readers,
      documents: (r.documents ?? []).map((d) => ({
        title: d.title,
        views: d.views,
        seconds: d.seconds,
        topPage: d.top_page,
      })),
    })),
  };
}

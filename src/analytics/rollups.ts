import type { Queryable } from '../db/database.ts';

/**
 * Recomputes the given rooms' daily rollups from their visits, views and downloads, in
 * three set-based statements. Every write of events calls it in the same transaction, so
 * the rollups always agree with the events.
 */
export async function refreshDailyRollups(tx: Queryable, roomIds: readonly string[]): Promise<void> {
  if (roomIds.length === 0) return;
  const rooms = [roomIds];
  await tx.query('DELETE FROM room_daily_views WHERE deal_room_id = ANY($1::uuid[])', rooms);
  await tx.query(
    `INSERT INTO room_daily_views (deal_room_id, day, document_id, views, duration_seconds)
     SELECT deal_room_id, (started_at AT TIME ZONE 'UTC')::date, document_id, count(*), sum(duration_seconds)
       FROM views WHERE deal_room_id = ANY($1::uuid[]) GROUP BY 1, 2, 3`,
    rooms,
  );
  await tx.query('DELETE FROM room_daily_visits WHERE deal_room_id = ANY($1::uuid[])', rooms);
  await tx.query(
    `INSERT INTO room_daily_visits (deal_room_id, day, link_id, visits)
     SELECT deal_room_id, (at AT TIME ZONE 'UTC')::date, link_id, count(*)
       FROM visits WHERE deal_room_id = ANY($1::uuid[]) GROUP BY 1, 2, 3`,
    rooms,
  );
  await tx.query('DELETE FROM room_daily_downloads WHERE deal_room_id = ANY($1::uuid[])', rooms);
  await tx.query(
    `INSERT INTO room_daily_downloads (deal_room_id, day, downloads)
     SELECT deal_room_id, (at AT TIME ZONE 'UTC')::date, count(*)
       FROM downloads WHERE deal_room_id = ANY($1::uuid[]) GROUP BY 1, 2`,
    rooms,
  );
}

import type { PageRow } from '../core/envelope.ts';
import type { Queryable } from '../db/database.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';
import { scopeOf } from '../write/transaction.ts';

export interface DealRoomRow {
  id: string;
  name: string;
  description: string;
  status: 'active' | 'archived';
  document_count: number;
  link_count: number;
  total_views: number;
  created_at: Date;
  updated_at: Date;
}

export interface DealRoomDetailRow extends DealRoomRow {
  unique_viewers: number;
  duration_sum: number;
}

/** Every figure is a column the delta module keeps (src/aggregates/deltas.ts). */
const ROOM_COLUMNS = `r.id, r.name, r.description, r.status, r.created_at, r.updated_at,
  r.document_count, r.link_count, r.total_views`;

/** One page of the team's rooms and their total, in one query. */
export async function listDealRooms(
  db: Queryable,
  teamId: string,
  options: { status: string | undefined; limit: number; offset: string },
): Promise<(DealRoomRow & PageRow)[]> {
  return db.query<DealRoomRow & PageRow>(
    `SELECT CASE $2::text WHEN 'active' THEN t.active_rooms WHEN 'archived' THEN t.archived_rooms
                ELSE t.active_rooms + t.archived_rooms END AS total, p.*
       FROM teams t
       LEFT JOIN LATERAL (
         SELECT ${ROOM_COLUMNS} FROM deal_rooms r
          WHERE r.team_id = t.id AND ($2::text IS NULL OR r.status = $2)
          ORDER BY r.updated_at DESC, r.id
          LIMIT $3 OFFSET $4::bigint
       ) p ON true
      WHERE t.id = $1`,
    [teamId, options.status ?? null, options.limit, options.offset],
  );
}

export async function findDealRoom(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<DealRoomDetailRow | undefined> {
  const rows = await db.query<DealRoomDetailRow>(
    `SELECT ${ROOM_COLUMNS}, r.unique_viewers, r.duration_sum::float8 AS duration_sum
       FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2`,
    [id, teamId],
    // A primary-key lookup: one plan fits every room, so it is planned once per connection.
    { prepared: 'find_deal_room' },
  );
  return rows[0];
}

/**
 * A page of something in a room, read in one query with the room's kept total: `page` is a
 * SELECT over `r.id` (the room) with `LIMIT $3 OFFSET $4`; $1 is the room, $2 the team.
 * No row when the room is not the team's; one row with a null id for an empty page.
 */
export function roomPageSql(totalColumn: string, page: string): string {
  return `SELECT r.${totalColumn} AS total, p.*
            FROM deal_rooms r
            LEFT JOIN LATERAL (${page}) p ON true
           WHERE r.id = $1 AND r.team_id = $2`;
}

/**
 * The room's figures version, when it is the team's: the delta module moves it with every
 * change to a figure of the room and every change to its documents or links
 * (aggregates/contents.ts), so a list of the room rendered at one version holds while it does.
 */
export async function roomVersion(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<string | undefined> {
  const rows = await db.query<{ version: string }>(
    'SELECT figures_version::text AS version FROM deal_rooms WHERE id = $1 AND team_id = $2',
    [roomId, teamId],
    { prepared: 'room_version' },
  );
  return rows[0]?.version;
}

/** A page of something in a room (roomPageSql), read for the team with its LIMIT and OFFSET. */
export function queryRoomPage<Row>(
  db: Queryable,
  where: { teamId: string; roomId: string; page: { limit: number; offset: string } },
  totalColumn: string,
  page: string,
): Promise<(Row & PageRow)[]> {
  return db.query<Row & PageRow>(roomPageSql(totalColumn, page), [
    where.roomId,
    where.teamId,
    where.page.limit,
    where.page.offset,
  ]);
}

/** A room by id, for a write: within the write's team (scopeOf), any team's for the admin token. */
export interface RoomRecord extends DealRoomDetailRow {
  team_id: string;
}

export async function loadRoom(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<RoomRecord | undefined> {
  const rows = await tx.query<RoomRecord>(
    `SELECT ${ROOM_COLUMNS}, r.team_id, r.unique_viewers, r.duration_sum::float8 AS duration_sum
       FROM deal_rooms r WHERE r.id = $1 AND ($2::uuid IS NULL OR r.team_id = $2)${lockClause(lock, 'r')}`,
    [id, scopeOf(tx)],
  );
  return rows[0];
}

export async function insertDealRoom(
  tx: Queryable,
  room: { id: string; teamId: string; name: string; description: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO deal_rooms (id, team_id, name, description, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, 'active', $5, $5)`,
    [room.id, room.teamId, room.name, room.description, now],
  );
}

export async function updateDealRoomRow(
  tx: Queryable,
  id: string,
  fields: { name: string; description: string },
  now: Date,
): Promise<void> {
  await tx.query('UPDATE deal_rooms SET name = $2, description = $3, updated_at = $4 WHERE id = $1', [
    id,
    fields.name,
    fields.description,
    now,
  ]);
}

export async function setDealRoomStatusRow(
  tx: Queryable,
  id: string,
  status: 'active' | 'archived',
  now: Date,
): Promise<void> {
  await tx.query('UPDATE deal_rooms SET status = $2, updated_at = $3 WHERE id = $1', [id, status, now]);
}

/** Documents, links, viewers and rollups go with the room (ON DELETE CASCADE). */
export async function deleteDealRoomRow(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM deal_rooms WHERE id = $1', [id]);
}

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

/** Which rows a page of the team's rooms is: its status filter and window. */
export interface RoomListWindow {
  status: string | undefined;
  limit: number;
  offset: string;
}

/**
 * The page of rooms, in order, as the SELECT over `r` that both reads below share.
 * $1 the team, $2 the status or null, $3 and $4 the window.
 */
const ROOM_PAGE = `FROM deal_rooms r
          WHERE r.team_id = t.id AND ($2::text IS NULL OR r.status = $2)
          ORDER BY r.updated_at DESC, r.id
          LIMIT $3 OFFSET $4::bigint`;

/**
 * A page of rooms is whatever rows it reads: the team's (its room totals) and each room's.
 * A row's `xmin` is the transaction that wrote its current version, so it changes with every
 * update of the row and never comes back (with the figures version beside it, a wrapped
 * transaction id would also need the very same figures version).
 */
const stampOf = (teamVersion: string, rooms: string) => `${teamVersion};${rooms}`;
const ROOM_VERSION = `r.id::text || ':' || r.xmin::text || ':' || r.figures_version::text`;

export interface StampedRoomRow extends DealRoomRow {
  room_version: string;
}

/** One page of the team's rooms, their total and what makes the page's stamp, in one query. */
export async function listDealRooms(
  db: Queryable,
  teamId: string,
  window: RoomListWindow,
): Promise<{ rows: (StampedRoomRow & PageRow)[]; stamp: string | undefined }> {
  const rows = await db.query<StampedRoomRow & PageRow & { team_version: string }>(
    `SELECT CASE $2::text WHEN 'active' THEN t.active_rooms WHEN 'archived' THEN t.archived_rooms
                ELSE t.active_rooms + t.archived_rooms END AS total, t.xmin::text AS team_version, p.*
       FROM teams t
       LEFT JOIN LATERAL (SELECT ${ROOM_COLUMNS}, ${ROOM_VERSION} AS room_version ${ROOM_PAGE}) p ON true
      WHERE t.id = $1`,
    [teamId, window.status ?? null, window.limit, window.offset],
  );
  const first = rows[0];
  const versions = rows.flatMap((row) => (row.id === null ? [] : [row.room_version]));
  return { rows, stamp: first && stampOf(first.team_version, versions.join(',')) };
}

/**
 * The stamp of a page of the team's rooms (listDealRooms) without the rooms themselves: a
 * page rendered at this stamp still holds. Undefined for a team that does not exist.
 */
export async function roomListStamp(
  db: Queryable,
  teamId: string,
  window: RoomListWindow,
): Promise<string | undefined> {
  const rows = await db.query<{ team_version: string; rooms: string }>(
    `SELECT t.xmin::text AS team_version,
            coalesce((SELECT string_agg(p.version, ',' ORDER BY p.updated_at DESC, p.id)
                        FROM (SELECT r.id, r.updated_at, ${ROOM_VERSION} AS version ${ROOM_PAGE}) p), '') AS rooms
       FROM teams t
      WHERE t.id = $1`,
    [teamId, window.status ?? null, window.limit, window.offset],
    // The team's index in updated order, read to the page's end: one plan fits every team.
    { prepared: 'room_list_stamp' },
  );
  const row = rows[0];
  return row && stampOf(row.team_version, row.rooms);
}

/**
 * The room with its version (every column the detail shows is the room row's own, so the row's
 * version stamps it), when it is the team's.
 */
export async function findDealRoom(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<(DealRoomDetailRow & { room_version: string }) | undefined> {
  const rows = await db.query<DealRoomDetailRow & { room_version: string }>(
    `SELECT ${ROOM_COLUMNS}, r.unique_viewers, r.duration_sum::float8 AS duration_sum,
            ${ROOM_VERSION} AS room_version
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
 * The room's version, when it is the team's (ROOM_VERSION): its row's, which every update of
 * the row renews, and its figures version, which the delta module moves with every change to a
 * figure of the room and every change to its documents or links (aggregates/contents.ts). The
 * room's detail (its row's own columns) or a list of the room rendered at one version holds
 * while it does.
 */
export async function roomVersion(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<string | undefined> {
  const rows = await db.query<{ version: string }>(
    `SELECT ${ROOM_VERSION} AS version FROM deal_rooms r WHERE r.id = $1 AND r.team_id = $2`,
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

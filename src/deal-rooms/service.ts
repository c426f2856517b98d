import { type Page, type PageRow, pageFromRows, pageWindow } from '../core/envelope.ts';
import { apiErrors } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { PageRequest } from '../core/query.ts';
import { roundedMean } from '../core/time.ts';
import type { Queryable } from '../db/database.ts';
import * as repo from './repo.ts';
import type { DealRoom, DealRoomDetail } from './schemas.ts';

/** A page of the team's rooms, with the stamp it was read at (repo.roomListStamp). */
export async function listDealRooms(
  db: Queryable,
  teamId: string,
  request: PageRequest & { status: 'active' | 'archived' | undefined },
): Promise<{ page: Page<DealRoom>; stamp: string | undefined }> {
  const { rows, stamp } = await repo.listDealRooms(db, teamId, {
    status: request.status,
    ...pageWindow(request),
  });
  return { page: pageFromRows(rows, toDealRoom) ?? { items: [], total: 0 }, stamp };
}

/** The team's room, with the version of the row it was read from (a 404 for any other room). */
export async function getDealRoom(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<{ room: DealRoomDetail; version: string }> {
  const row = isUuid(id) ? await repo.findDealRoom(db, teamId, id) : undefined;
  if (!row) throw apiErrors.dealRoomNotFound();
  return { room: toDealRoomDetail(row), version: row.room_version };
}

export function toDealRoomDetail(row: repo.DealRoomDetailRow): DealRoomDetail {
  return {
    ...toDealRoom(row),
    uniqueViewers: row.unique_viewers,
    avgViewDurationSeconds: roundedMean(row.duration_sum, row.total_views),
  };
}

function toDealRoom(row: repo.DealRoomRow): DealRoom {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status,
    documentCount: row.document_count,
    linkCount: row.link_count,
    totalViews: row.total_views,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

/**
 * A page of a list inside a room of the caller's team, read in one query (the room check
 * is part of it), or the not_found error: a malformed id, another team's room and a missing
 * room are indistinguishable to the caller.
 */
export async function pageInRoom<Row extends PageRow, T>(
  roomId: string,
  read: () => Promise<Row[]>,
  toItem: (row: Row & { id: string }) => T,
): Promise<Page<T>> {
  const page = isUuid(roomId) ? pageFromRows(await read(), toItem) : undefined;
  if (!page) throw apiErrors.dealRoomNotFound();
  return page;
}

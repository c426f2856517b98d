import type { Queryable } from '../db/database.ts';
import { type Page, paginate } from '../http/envelope.ts';
import { apiErrors } from '../http/errors.ts';
import type { PageRequest } from '../http/query.ts';
import { isUuid } from '../shared/ids.ts';
import { roundedMean } from '../shared/time.ts';
import * as repo from './repo.ts';
import type { DealRoom, DealRoomDetail } from './schemas.ts';

export async function listDealRooms(
  db: Queryable,
  teamId: string,
  request: PageRequest & { status: 'active' | 'archived' | undefined },
): Promise<Page<DealRoom>> {
  return paginate(
    request,
    () => repo.countDealRooms(db, teamId, request.status),
    (window) => repo.listDealRooms(db, teamId, { status: request.status, ...window }),
    toDealRoom,
  );
}

export async function getDealRoom(db: Queryable, teamId: string, id: string): Promise<DealRoomDetail> {
  const row = isUuid(id) ? await repo.findDealRoom(db, teamId, id) : undefined;
  if (!row) throw apiErrors.dealRoomNotFound();
  return {
    ...toDealRoom(row),
    uniqueViewers: row.unique_viewers,
    avgViewDurationSeconds: roundedMean(row.duration_sum, row.total_views),
  };
}

/**
 * The id of a room of the caller's team, or the not_found error: a malformed id, another
 * team's room and a missing room are indistinguishable to the caller.
 */
export async function requireDealRoom(db: Queryable, teamId: string, id: string): Promise<string> {
  const found = isUuid(id) ? await repo.findRoomId(db, teamId, id) : undefined;
  if (!found) throw apiErrors.dealRoomNotFound();
  return found;
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

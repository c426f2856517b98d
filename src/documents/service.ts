import type { Queryable } from '../db/database.ts';
import { requireDealRoom } from '../deal-rooms/service.ts';
import { offsetWithin, type Page } from '../http/envelope.ts';
import type { PageRequest } from '../http/query.ts';
import * as repo from './repo.ts';
import type { Document } from './schemas.ts';

export async function listDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
  request: PageRequest,
): Promise<Page<Document>> {
  await requireDealRoom(db, teamId, roomId);
  const total = await repo.countPublishedDocuments(db, teamId, roomId);
  const offset = offsetWithin(request, total);
  if (offset === undefined) return { items: [], total };
  const rows = await repo.listPublishedDocuments(db, teamId, roomId, {
    limit: request.perPage,
    offset,
  });
  return { items: rows.map(toDocument), total };
}

export function toDocument(row: repo.DocumentRow): Document {
  return {
    id: row.id,
    name: row.name,
    displayName: row.display_name,
    sourceType: row.source_type as Document['sourceType'],
    pageCount: row.page_count,
    status: row.status as Document['status'],
    position: row.position,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

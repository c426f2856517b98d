import { type Page, pageWindow } from '../core/envelope.ts';
import type { PageRequest } from '../core/query.ts';
import type { Queryable } from '../db/database.ts';
import { pageInRoom } from '../deal-rooms/service.ts';
import * as repo from './repo.ts';
import type { Document } from './schemas.ts';

export async function listDocuments(
  db: Queryable,
  teamId: string,
  roomId: string,
  request: PageRequest,
): Promise<Page<Document>> {
  return pageInRoom(
    roomId,
    () => repo.listPublishedDocuments(db, teamId, roomId, pageWindow(request)),
    toDocument,
  );
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

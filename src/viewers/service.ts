import { type Page, pageWindow } from '../core/envelope.ts';
import type { PageRequest } from '../core/query.ts';
import type { Queryable } from '../db/database.ts';
import { pageInRoom } from '../deal-rooms/service.ts';
import * as repo from './repo.ts';
import type { Viewer } from './schemas.ts';

export async function listViewers(
  db: Queryable,
  teamId: string,
  roomId: string,
  request: PageRequest,
): Promise<Page<Viewer>> {
  return pageInRoom(roomId, () => repo.listViewers(db, teamId, roomId, pageWindow(request)), toViewer);
}

export function toViewer(row: repo.ViewerRow): Viewer {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    firstViewedAt: row.first_viewed_at.toISOString(),
    lastViewedAt: row.last_viewed_at.toISOString(),
    totalViews: row.total_views,
    totalDurationSeconds: row.total_duration_seconds,
    documentsViewed: row.documents_viewed,
    linkName: row.link_name,
  };
}

import { type Page, pageWindow } from '../core/envelope.ts';
import type { PageRequest } from '../core/query.ts';
import type { Queryable } from '../db/database.ts';
import { pageInRoom } from '../deal-rooms/service.ts';
import * as repo from './repo.ts';
import type { Link } from './schemas.ts';

export async function listLinks(
  db: Queryable,
  teamId: string,
  roomId: string,
  request: PageRequest,
  render: LinkRendering,
): Promise<Page<Link>> {
  return pageInRoom(
    roomId,
    () => repo.listLinks(db, teamId, roomId, pageWindow(request)),
    (row) => toLink(row, render),
  );
}

export interface LinkRendering {
  appUrl: string;
  now: Date;
}

export function toLink(row: repo.LinkRow, { appUrl, now }: LinkRendering): Link {
  const expired = row.expires_at !== null && row.expires_at.getTime() <= now.getTime();
  return {
    id: row.id,
    name: row.name,
    shortId: row.short_id,
    url: `${appUrl}/v/${encodeURIComponent(row.short_id)}`,
    isActive: row.enabled && !expired,
    requiresEmail: row.requires_email,
    requiresPassword: row.has_password,
    expiresAt: row.expires_at?.toISOString() ?? null,
    totalClicks: row.total_clicks,
    createdAt: row.created_at.toISOString(),
  };
}

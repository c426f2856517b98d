import { apiErrors } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { isoDay, roundedMean } from '../core/time.ts';
import type { Queryable } from '../db/database.ts';
import { fillDailySeries, periodDays } from './period.ts';
import * as repo from './repo.ts';
import type { Analytics, Period } from './schemas.ts';

const TOP_LIMIT = 10;

/**
 * The room's kept figures (which also decide where `all` starts, and whose version tells a
 * kept body still holds), when it is the team's: the first of analytics' two queries.
 */
export async function analyticsRoom(
  db: Queryable,
  teamId: string,
  roomId: string,
): Promise<repo.RoomFigures> {
  const room = isUuid(roomId) ? await repo.roomFigures(db, teamId, roomId) : undefined;
  if (!room) throw apiErrors.dealRoomNotFound();
  return room;
}

/**
 * Two queries whatever the room's size: the room's kept figures, then the period's figures
 * from the per-day rollups, or for `all` from the kept all-time figures.
 */
export async function getAnalytics(
  db: Queryable,
  teamId: string,
  roomId: string,
  period: Period,
  now: Date,
): Promise<Analytics> {
  return analyticsOf(db, teamId, roomId, await analyticsRoom(db, teamId, roomId), period, now);
}

/** The second query: the period's figures of a room already read. */
export async function analyticsOf(
  db: Queryable,
  teamId: string,
  roomId: string,
  room: repo.RoomFigures,
  period: Period,
  now: Date,
): Promise<Analytics> {
  const bounds = periodDays(period, now, { createdAt: room.created_at, firstViewAt: room.first_view_at });
  let figures: repo.PeriodFigures;
  if (period === 'all') {
    const all = await repo.allTimeFigures(db, teamId, roomId, bounds.firstDay, TOP_LIMIT);
    figures = {
      ...all,
      totals: {
        views: room.total_views,
        duration: room.duration_sum,
        viewers: room.unique_viewers,
        downloads: room.total_downloads - all.downloads_before,
      },
    };
  } else {
    figures = await repo.periodFigures(db, teamId, roomId, bounds.firstDay, TOP_LIMIT);
  }

  // A view stamped a few minutes past midnight (ingest allows five minutes ahead) counts today.
  const today = isoDay(bounds.today);
  const perDay = new Map<string, number>();
  for (const [day, views] of figures.daily ?? []) {
    const key = day > today ? today : day;
    perDay.set(key, (perDay.get(key) ?? 0) + views);
  }
  const { totals } = figures;
  return {
    dealRoomId: roomId,
    period,
    totalViews: totals.views,
    uniqueViewers: totals.viewers,
    avgViewDurationSeconds: roundedMean(totals.duration, totals.views),
    totalDownloads: totals.downloads,
    topDocuments: (figures.top_documents ?? []).map((d) => ({
      documentId: d.id,
      name: d.name,
      views: d.count,
      avgDurationSeconds: roundedMean(d.duration, d.count),
    })),
    topLinks: (figures.top_links ?? []).map((l) => ({ linkId: l.id, name: l.name, clicks: l.count })),
    viewsOverTime: fillDailySeries(bounds, perDay),
  };
}

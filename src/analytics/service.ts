import type { Queryable } from '../db/database.ts';
import { apiErrors } from '../http/errors.ts';
import type { Period } from '../http/query.ts';
import { isUuid } from '../shared/ids.ts';
import { roundedMean } from '../shared/time.ts';
import { fillDailySeries, periodDays } from './period.ts';
import * as repo from './repo.ts';
import type { Analytics } from './schemas.ts';

const TOP_LIMIT = 10;

export async function getAnalytics(
  db: Queryable,
  teamId: string,
  roomId: string,
  period: Period,
  now: Date,
): Promise<Analytics> {
  const timeline = isUuid(roomId) ? await repo.roomTimeline(db, teamId, roomId) : undefined;
  if (!timeline) throw apiErrors.dealRoomNotFound();

  const bounds = periodDays(period, now, timeline);
  const since = bounds.firstDay;
  const [totals, downloads, daily, documents, links] = await Promise.all([
    repo.viewTotals(db, teamId, roomId, since),
    repo.downloadCount(db, teamId, roomId, since),
    repo.viewsPerDay(db, teamId, roomId, since, bounds.today),
    repo.topDocuments(db, teamId, roomId, since, TOP_LIMIT),
    repo.topLinks(db, teamId, roomId, since, TOP_LIMIT),
  ]);

  return {
    dealRoomId: roomId,
    period,
    totalViews: totals.views,
    uniqueViewers: totals.viewers,
    avgViewDurationSeconds: roundedMean(totals.duration, totals.views),
    totalDownloads: downloads,
    topDocuments: documents.map((d) => ({
      documentId: d.id,
      name: d.name,
      views: d.views,
      avgDurationSeconds: roundedMean(d.duration, d.views),
    })),
    topLinks: links.map((l) => ({ linkId: l.id, name: l.name, clicks: l.clicks })),
    viewsOverTime: fillDailySeries(bounds, new Map(daily.map((d) => [d.day, d.views]))),
  };
}

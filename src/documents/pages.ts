import { firstDayOf, type Period } from '../core/period.ts';
import type { Queryable } from '../db/database.ts';
import type { PageFigures } from './schemas.ts';

/**
 * A document's page figures over a period of whole UTC days ending today (contract.md
 * section 7), read from the kept daily rows: O(pages × days), whatever the number of views.
 * undefined when there is no such document.
 */
export async function pageFigures(
  db: Queryable,
  documentId: string,
  period: Period,
  now: Date,
): Promise<PageFigures | undefined> {
  const firstDay = period === 'all' ? null : firstDayOf(period, now);
  const [document] = await db.query<{ page_count: number; views: string | number }>(
    `SELECT d.page_count,
            coalesce((SELECT sum(v.views) FROM room_daily_views v
                       WHERE v.deal_room_id = d.deal_room_id AND v.document_id = d.id
                         AND ($2::date IS NULL OR v.day >= $2::date)), 0) AS views
       FROM documents d WHERE d.id = $1`,
    [documentId, firstDay],
  );
  if (!document) return undefined;
  const rows = await db.query<{ page: number; views: string | number; seconds: string | number }>(
    `SELECT page, sum(views) AS views, sum(active_seconds) AS seconds FROM document_page_daily
      WHERE document_id = $1 AND page <= $2 AND ($3::date IS NULL OR day >= $3::date)
      GROUP BY page`,
    [documentId, document.page_count, firstDay],
  );
  const byPage = new Map(rows.map((r) => [r.page, { views: Number(r.views), seconds: Number(r.seconds) }]));
  const views = Number(document.views);
  const pages = Array.from({ length: document.page_count }, (_, i) => {
    const { views: pageViews, seconds } = byPage.get(i + 1) ?? { views: 0, seconds: 0 };
    return {
      page: i + 1,
      views: pageViews,
      activeSeconds: seconds,
      avgActiveSeconds: pageViews === 0 ? 0 : Math.floor(seconds / pageViews + 0.5),
    };
  });
  const pagesSeen = pages.reduce((sum, p) => sum + p.views, 0);
  const completion =
    views === 0 || document.page_count === 0 ? 0 : Math.min(1, pagesSeen / (views * document.page_count));
  return {
    documentId,
    period,
    pageCount: document.page_count,
    views,
    completion: Math.round(completion * 10_000) / 10_000,
    pages,
  };
}

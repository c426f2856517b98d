import type { Queryable } from '../db/database.ts';
import { day } from './deltas.ts';

/** Active seconds read on one page of a started view, and whether the view reads that page for the first time. */
export interface PageReading {
  documentId: string;
  /** When the view started: its page figures count on that day, as its duration does. */
  startedAt: Date;
  page: number;
  seconds: number;
  first: boolean;
}

/**
 * Active reading reported by views: per page (of the document, on the day the view started)
 * its seconds, and one more view for each page a view reads for the first time.
 */
export async function applyPageReadings(tx: Queryable, readings: readonly PageReading[]): Promise<void> {
  if (readings.length === 0) return;
  await tx.query(
    `INSERT INTO document_page_daily (document_id, day, page, views, active_seconds)
     SELECT document, ${day('started_at')}, page, sum(first::int), sum(seconds)
       FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::boolean[])
            AS p(document, started_at, page, seconds, first)
      GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
     ON CONFLICT (document_id, day, page) DO UPDATE
       SET views = document_page_daily.views + EXCLUDED.views,
           active_seconds = document_page_daily.active_seconds + EXCLUDED.active_seconds`,
    [
      readings.map((r) => r.documentId),
      readings.map((r) => r.startedAt),
      readings.map((r) => r.page),
      readings.map((r) => r.seconds),
      readings.map((r) => r.first),
    ],
  );
}

import { Value } from '@sinclair/typebox/value';
import { applyViewDurations } from '../aggregates/deltas.ts';
import { applyPageReadings } from '../aggregates/page-readings.ts';
import type { Clock } from '../core/clock.ts';
import { ApiError, fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Database } from '../db/database.ts';
import { announceActivity } from '../events/activity.ts';
import type { RecordedEvent } from '../events/catalogue.ts';
import { recordEvents } from '../events/outbox.ts';
import { batchersByStore, type Settled, WriteBatcher } from '../write/batch.ts';
import { inWrite, preparing, type WriteContext, type WriteTx } from '../write/transaction.ts';
import {
  addViewPages,
  lockedView,
  lockViews,
  recordReports,
  silentViews,
  type ViewToComplete,
} from './repo.ts';
import { ReadingReportBody } from './schemas.ts';
import { renderView, type View } from './view-starts.ts';

/** A view whose page has not reported for this long is completed by the worker. */
export const SILENT_VIEW_MS = 5 * 60 * 1000;
/** The page reports at least this often; a report may count a little more than the time since the last one. */
export const REPORT_EVERY_MS = 10_000;
/** A view's active time never exceeds the time since it started plus this (one report's worth). */
export const REPORT_SLACK_SECONDS = 10;
/** Pages of one report: a document has at most this many (the viewer reports only pages it shows). */
export const MAX_REPORTED_PAGES = 10_000;
/** The most reports one transaction takes. */
const MAX_BATCH = 256;

/**
 * A report's body (JSON, sent as text so that sendBeacon may send the last one) checked
 * against ReadingReportBody, with its pages as numbers and each page's seconds capped at a
 * day; undefined when it is not one.
 */
export function readingReportOf(body: unknown): { token: string; report: ReadingReport } | undefined {
  let value: unknown = body;
  if (typeof body === 'string') {
    try {
      value = JSON.parse(body);
    } catch {
      return undefined;
    }
  }
  if (!Value.Check(ReadingReportBody, value)) return undefined;
  const pages = Object.entries(value.pages)
    .filter(([, seconds]) => Number.isFinite(seconds) && seconds > 0)
    .map(([page, seconds]) => ({ page: Number(page), seconds: Math.min(seconds, 86_400) }));
  return { token: value.token, report: { id: value.id, pages, final: value.final === true } };
}

export interface ReadingReport {
  /** The sender's id for this report: one sent again after a lost answer is counted once. */
  id?: string | undefined;
  /** Active seconds per page (1-based) since the previous report. */
  pages: readonly { page: number; seconds: number }[];
  /** The person left: the view is completed with this report. */
  final: boolean;
}

export interface ReportOutcome {
  view: View;
  completed: boolean;
}

/**
 * Writes one report; resolves once its batch has committed. `through`: the link the report
 * comes through; the view must have opened through it, and it must still be open.
 */
export type ReportReading = (
  ctx: WriteContext,
  viewId: string,
  report: ReadingReport,
  through?: { shortId: string },
) => Promise<ReportOutcome>;

const viewNotFound = () => fail('viewNotFound');

/** A report through a link that has been disabled or has expired since the view opened. */
export class LinkClosedError extends ApiError {
  constructor() {
    super('conflict', 'This link is no longer active');
  }
}

interface Submitted {
  ctx: WriteContext;
  viewId: string;
  report: ReadingReport;
  shortId: string | undefined;
}

/** A view's report as it is written: the view, the pages to add, whether it completes the view. */
interface Reading {
  viewId: string;
  row: ViewToComplete;
  pages: { page: number; seconds: number }[];
  final: boolean;
  reportId?: string | undefined;
}

/**
 * A report writer for the link page: a view's pages and duration grow by the active seconds
 * read since its last report (never by more time than has passed: a page cannot report an
 * hour in ten seconds), through the delta module; a final report completes the view and
 * raises view.completed, once. A report on a completed view changes nothing and says so (409).
 *
 * Every open document reports, all onto the same few rows of its room and document, so
 * concurrent reports are committed together (write/batch.ts), as view starts are: one
 * transaction, set-based statements, the hot rows locked once per batch. A view appears at
 * most once in a batch. The web app makes one writer, for every link page it serves.
 */
export function createReadingWriter(): ReportReading {
  const batcherFor = batchersByStore(
    (db, clock) =>
      new WriteBatcher<Submitted, ReportOutcome>((items) => reportAll(db, clock, items), {
        maxItems: MAX_BATCH,
        exclusiveKeys: (item) => [item.viewId],
      }),
  );
  return (ctx, viewId, report, through) => {
    if (!isUuid(viewId)) return Promise.reject(viewNotFound());
    return batcherFor(ctx.db, ctx.clock).submit({
      ctx,
      viewId: viewId.toLowerCase(),
      report,
      shortId: through?.shortId,
    });
  };
}

async function reportAll(
  db: Database,
  clock: Clock,
  items: readonly Submitted[],
): Promise<Settled<ReportOutcome>[]> {
  let outcomes: Settled<ReportOutcome>[] = [];
  let events: RecordedEvent[][] = [];
  await inWrite({ db, clock, appUrl: '' }, async (raw) => {
    const tx = preparing(raw);
    const rows = await lockViews(
      tx,
      items.map((item) => item.viewId),
    );
    const readings: Reading[] = [];
    const owners: number[] = [];
    outcomes = items.map((item, i) => {
      const row = rows.get(item.viewId);
      const error = refusal(item, row, tx.now);
      if (error || !row) return { ok: false, error: error ?? viewNotFound() };
      // Sent again after a lost answer: already counted, unless it also ends the view.
      const repeated = item.report.id !== undefined && item.report.id === row.last_report_id;
      // Never more active time than has passed since the view started (plus one report's slack).
      const elapsed = Math.max(0, Math.floor((tx.now.getTime() - row.started_at.getTime()) / 1000));
      const allowed = Math.max(0, elapsed + REPORT_SLACK_SECONDS - row.duration_seconds);
      readings.push({
        viewId: item.viewId,
        row,
        pages: repeated ? [] : capped(item.report.pages, allowed),
        final: item.report.final,
        reportId: item.report.id,
      });
      owners.push(i);
      return { ok: false, error: new Error('a report was left unsettled') };
    });
    const written = await record(tx, readings);
    events = items.map(() => []);
    written.forEach((w, n) => {
      const i = owners[n] as number;
      outcomes[i] = { ok: true, value: w.outcome };
      if (w.event) events[i]?.push(w.event);
    });
  });
  items.forEach((item, i) => {
    if (outcomes[i]?.ok) item.ctx.onCommitted?.(events[i] ?? []);
  });
  return outcomes;
}

/** Why a report is refused: an unknown view or another link's (404), a closed link (410), a completed view (409). */
function refusal(item: Submitted, row: ViewToComplete | undefined, now: Date): ApiError | undefined {
  if (!row || (item.shortId !== undefined && row.short_id !== item.shortId)) return viewNotFound();
  const expired = row.link_expires_at !== null && row.link_expires_at.getTime() <= now.getTime();
  if (item.shortId !== undefined && (!row.link_enabled || expired)) return new LinkClosedError();
  if (row.completed_at !== null) return new ApiError('conflict', 'This view is already completed');
  const last = Math.max(0, ...item.report.pages.map((p) => p.page));
  if (last > Math.max(row.page_count, 1)) {
    return new ApiError(
      'validation_error',
      `Page ${last} is past the document's last page (${row.page_count})`,
    );
  }
  return undefined;
}

/** Completes the views whose page stopped reporting 5 minutes ago (the worker calls it); returns how many. */
export async function completeSilentViews(ctx: WriteContext, limit = 500): Promise<number> {
  const ids = await silentViews(ctx.db, new Date(ctx.clock.now().getTime() - SILENT_VIEW_MS), limit);
  if (ids.length === 0) return 0;
  return inWrite(ctx, async (tx) => {
    const rows = await lockViews(tx, ids);
    // Checked again under the lock: a report may have come in since the silent ones were listed.
    const silent = [...rows].filter(
      ([, row]) =>
        row.completed_at === null &&
        row.last_report_at !== null &&
        row.last_report_at.getTime() < tx.now.getTime() - SILENT_VIEW_MS,
    );
    await record(
      tx,
      silent.map(([viewId, row]) => ({ viewId, row, pages: [], final: true })),
    );
    return silent.length;
  });
}

/**
 * Reports of several views in the writing transaction, in the lock order of the delta module:
 * the views (locked by the caller), their pages, their viewers, the page figures, the events,
 * and the room's rows last.
 */
async function record(
  tx: WriteTx,
  readings: readonly Reading[],
): Promise<{ outcome: ReportOutcome; event: RecordedEvent | undefined }[]> {
  if (readings.length === 0) return [];
  const fresh = await addViewPages(
    tx,
    readings.flatMap(({ viewId, pages }) => pages.map((p) => ({ viewId, ...p }))),
  );
  const views = readings.map(({ viewId, row, pages }) => {
    const added = pages.reduce((sum, p) => sum + p.seconds, 0);
    return { added, view: lockedView(viewId, row, row.duration_seconds + added) };
  });
  await recordReports(
    tx,
    views.map(({ view }, i) => ({
      viewId: view.id,
      durationSeconds: view.durationSeconds,
      completed: (readings[i] as Reading).final,
      reportId: (readings[i] as Reading).reportId,
    })),
    tx.now,
  );
  // The team's own views grow on their rows and pages only: no figure, no event.
  await applyPageReadings(
    tx,
    readings.flatMap(({ viewId, row, pages }) =>
      (row.internal ? [] : pages).map((p) => ({
        documentId: row.document_id,
        startedAt: row.started_at,
        ...p,
        first: fresh.has(`${viewId}/${p.page}`),
      })),
    ),
  );
  await announceActivity(
    tx,
    readings.filter((r) => !r.row.internal).map((r) => r.row.deal_room_id),
  );
  const rendered = views.map(({ view }) => renderView(view));
  const completing = readings.flatMap((reading, i) => (reading.final && !reading.row.internal ? [i] : []));
  const recorded = await recordEvents(
    tx,
    completing.map((i) => {
      const { row } = readings[i] as Reading;
      return {
        teamId: row.team_id,
        dealRoomId: row.deal_room_id,
        type: 'view.completed',
        data: rendered[i] as View,
      };
    }),
  );
  const eventOf = new Map(completing.map((i, n) => [i, recorded[n]]));
  // The viewers' and the room's figures last: the room's rows are the ones every writer of it waits for.
  await applyViewDurations(
    tx,
    views.flatMap(({ view, added }, i) =>
      (readings[i] as Reading).row.internal ? [] : [{ ...view, addedSeconds: added }],
    ),
  );
  return readings.map((reading, i) => ({
    outcome: { view: rendered[i] as View, completed: reading.final },
    event: eventOf.get(i),
  }));
}

/** The pages with time, whole seconds, in page order; at most `allowed` seconds in all (the first pages keep theirs). */
function capped(pages: ReadingReport['pages'], allowed: number): { page: number; seconds: number }[] {
  const merged = new Map<number, number>();
  for (const { page, seconds } of pages) {
    if (!Number.isInteger(page) || page < 1 || !Number.isFinite(seconds) || seconds <= 0) continue;
    merged.set(page, (merged.get(page) ?? 0) + Math.floor(seconds));
  }
  let left = allowed;
  const out: { page: number; seconds: number }[] = [];
  for (const [page, seconds] of [...merged].sort(([a], [b]) => a - b)) {
    const taken = Math.min(seconds, left);
    left -= taken;
    if (taken > 0) out.push({ page, seconds: taken });
  }
  return out;
}

import { applyPageReading, applyViewDuration } from '../aggregates/deltas.ts';
import { ApiError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { recordEvent } from '../events/outbox.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import { addViewPages, lockView, markViewReporting, recordReport, silentViews } from './repo.ts';
import { renderView, type View } from './view-starts.ts';

/** A view whose page has not reported for this long is completed by the worker. */
export const SILENT_VIEW_MS = 5 * 60 * 1000;
/** The page reports at least this often; a report may count a little more than the time since the last one. */
export const REPORT_EVERY_MS = 10_000;
const REPORT_SLACK_SECONDS = 5;
/** Pages of one report: a document has at most this many (the viewer reports only pages it shows). */
export const MAX_REPORTED_PAGES = 10_000;

export interface ReadingReport {
  /** Active seconds per page (1-based) since the previous report. */
  pages: readonly { page: number; seconds: number }[];
  /** The person left: the view is completed with this report. */
  final: boolean;
}

const viewNotFound = () => new ApiError('not_found', 'View not found');

/** A view was opened on the link page: from now on it reports, and is completed when its reports stop. */
export async function startReporting(ctx: WriteContext, viewId: string): Promise<void> {
  await inWrite(ctx, (tx) => markViewReporting(tx, viewId, tx.now));
}

/**
 * A report of the link page: the view's pages and duration grow by the active seconds read
 * since the last report (never by more time than has passed: a page cannot report an hour
 * in ten seconds), through the delta module; a final report completes the view and raises
 * view.completed, once. A report on a completed view changes nothing and says so (409).
 */
export async function reportReading(
  ctx: WriteContext,
  viewId: string,
  report: ReadingReport,
): Promise<{ view: View; completed: boolean }> {
  if (!isUuid(viewId)) throw viewNotFound();
  return inWrite(ctx, async (tx) => {
    const row = await lockView(tx, viewId);
    if (!row) throw viewNotFound();
    if (row.completed_at !== null) throw new ApiError('conflict', 'This view is already completed');
    const since = (row.last_report_at ?? row.started_at).getTime();
    const allowed = Math.max(0, Math.ceil((tx.now.getTime() - since) / 1000)) + REPORT_SLACK_SECONDS;
    const pages = capped(report.pages, allowed);
    return record(tx, viewId, row, pages, report.final);
  });
}

/** Completes the views whose page stopped reporting 5 minutes ago (the worker calls it); returns how many. */
export async function completeSilentViews(ctx: WriteContext, limit = 500): Promise<number> {
  const ids = await silentViews(ctx.db, new Date(ctx.clock.now().getTime() - SILENT_VIEW_MS), limit);
  let completed = 0;
  for (const id of ids) {
    const done = await inWrite(ctx, async (tx) => {
      const row = await lockView(tx, id);
      if (!row || row.completed_at !== null || row.last_report_at === null) return false;
      if (row.last_report_at.getTime() >= tx.now.getTime() - SILENT_VIEW_MS) return false;
      await record(tx, id, row, [], true);
      return true;
    });
    if (done) completed++;
  }
  return completed;
}

async function record(
  tx: WriteTx,
  viewId: string,
  row: NonNullable<Awaited<ReturnType<typeof lockView>>>,
  pages: { page: number; seconds: number }[],
  final: boolean,
): Promise<{ view: View; completed: boolean }> {
  const added = pages.reduce((sum, p) => sum + p.seconds, 0);
  const fresh = await addViewPages(tx, viewId, pages);
  const durationSeconds = row.duration_seconds + added;
  await recordReport(tx, viewId, durationSeconds, tx.now, final);
  const view = {
    id: viewId,
    dealRoomId: row.deal_room_id,
    documentId: row.document_id,
    linkId: row.link_id,
    viewerId: row.viewer_id,
    startedAt: row.started_at,
    durationSeconds,
  };
  await applyViewDuration(tx, view, added);
  await applyPageReading(
    tx,
    view,
    pages.map((p) => ({ ...p, first: fresh.has(p.page) })),
  );
  const rendered = renderView(view);
  if (final) {
    await recordEvent(tx, { teamId: row.team_id, dealRoomId: row.deal_room_id }, 'view.completed', rendered);
  }
  return { view: rendered, completed: final };
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

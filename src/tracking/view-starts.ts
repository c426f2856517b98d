import type { Static } from '@sinclair/typebox';
import { applyViewersOfViews } from '../aggregates/deltas.ts';
import { type ViewFact, viewRows } from '../aggregates/rows.ts';
import type { Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import type { Database } from '../db/database.ts';
import { announceActivity } from '../events/activity.ts';
import type { RecordedEvent } from '../events/catalogue.ts';
import { type NewEvent, recordEvents } from '../events/outbox.ts';
import { identityKey, type ViewerIdentity } from '../viewers/identity.ts';
import { loadViewers } from '../viewers/repo.ts';
import { toViewer } from '../viewers/service.ts';
import { batchersByStore, type Settled, WriteBatcher } from '../write/batch.ts';
import {
  claimKeys,
  type IdempotencyClaim,
  inWrite,
  keepAnswers,
  preparing,
  releaseKeys,
  type WriteContext,
  type WriteTx,
} from '../write/transaction.ts';
import { insertViews } from './repo.ts';
import type { ViewSchema } from './schemas.ts';
import { eventTime, type LinkTarget, linkNotFound, openLinks } from './targets.ts';
import { type LockedViewer, lockViewers, type ViewerInput, viewerIdentity } from './viewers.ts';

/** How long after the start of their previous view a known viewer's new one is a return. */
export const RETURN_AFTER_MS = 30 * 60 * 1000;
/** The most view starts one transaction takes. */
const MAX_BATCH = 128;

export type View = Static<typeof ViewSchema>;

interface ViewStart {
  ctx: WriteContext;
  linkId: string;
  documentId: string;
  viewer: ViewerIdentity;
  startedAt: Date | undefined;
  reporting: boolean;
}

/** Writes one view start; resolves with the view once its batch has committed. */
export type StartView = (
  ctx: WriteContext,
  linkId: string,
  input: {
    documentId: string;
    viewer: ViewerInput;
    startedAt?: Date | undefined;
    /**
     * Opened on the link page: its page reports the reading (tracking/reading.ts), and the
     * worker completes the view when the reports stop.
     */
    reporting?: boolean | undefined;
  },
) => Promise<View>;

/**
 * A view-start writer: a view starts, with view.started, and viewer.created (their first view
 * in the room) or viewer.returned (30 minutes or more after the start of their previous one).
 *
 * View starts are what live tracking sends most, all onto the same few rows of a busy room,
 * so concurrent ones are committed together (write/batch.ts): one transaction, the same
 * set-based deltas an import uses, the room's rows locked once per batch. A viewer or an
 * Idempotency-Key appears at most once in a batch, so each answer and event is what the
 * view alone would give. The writer holds its batchers (one per store and clock: a batch
 * shares one transaction and one "now"); the composition root makes one per process and
 * passes it to whoever starts views.
 */
export function createViewStartWriter(): StartView {
  const batcherFor = batchersByStore(
    (db, clock) =>
      new WriteBatcher<ViewStart, View>((starts) => startViews(db, clock, starts), {
        maxItems: MAX_BATCH,
        exclusiveKeys: (start) => [
          `viewer:${identityKey(start.viewer)}`,
          ...(start.ctx.idempotency ? [`key:${start.ctx.idempotency.key}`] : []),
        ],
      }),
  );
  return (ctx, linkId, input) => {
    if (!isUuid(linkId)) return Promise.reject(linkNotFound());
    let viewer: ViewerIdentity;
    try {
      viewer = viewerIdentity(input.viewer);
    } catch (err) {
      return Promise.reject(err);
    }
    return batcherFor(ctx.db, ctx.clock).submit({
      ctx,
      linkId: linkId.toLowerCase(),
      documentId: input.documentId,
      viewer,
      startedAt: input.startedAt,
      reporting: input.reporting === true,
    });
  };
}

/** What one start has become so far inside the batch's transaction. */
interface Progress {
  start: ViewStart;
  outcome?: Settled<View>;
  events: RecordedEvent[];
}

/** A start that passed its checks: what it goes through, and when it started. */
interface Checked {
  progress: Progress;
  target: LinkTarget;
  startedAt: Date;
}

async function startViews(
  db: Database,
  clock: Clock,
  starts: readonly ViewStart[],
): Promise<Settled<View>[]> {
  let progress: Progress[] = [];
  await inWrite({ db, clock, appUrl: '' }, async (raw) => {
    const tx = preparing(raw);
    progress = starts.map((start) => ({ start, events: [] }));
    await claimStartKeys(tx, progress);
    const checked = await openTargets(tx, progress);
    if (checked.length > 0) await writeViews(tx, checked);
    await keepAnswers(
      tx,
      checked.flatMap(({ progress: p }) =>
        p.start.ctx.idempotency && p.outcome?.ok
          ? [{ key: p.start.ctx.idempotency.key, answer: p.outcome.value }]
          : [],
      ),
    );
  });
  for (const p of progress) if (p.outcome?.ok) p.start.ctx.onCommitted?.(p.events);
  return progress.map((p) => p.outcome ?? { ok: false, error: new Error('a view start was left unsettled') });
}

/** Idempotency-Keys first: a repeat gets its first answer even if the link has closed since. */
async function claimStartKeys(tx: WriteTx, progress: Progress[]): Promise<void> {
  const keyed = progress.filter((p) => p.start.ctx.idempotency);
  const refusals = await claimKeys(
    tx,
    keyed.map((p) => p.start.ctx.idempotency as IdempotencyClaim),
  );
  keyed.forEach((p, i) => {
    const refusal = refusals[i];
    if (refusal) p.outcome = { ok: false, error: refusal };
  });
}

/**
 * Each start's time and link and document, checked open: the starts that passed, while a
 * refused start keeps its error and gives its Idempotency-Key back.
 */
async function openTargets(tx: WriteTx, progress: Progress[]): Promise<Checked[]> {
  const open = progress.filter((p) => !p.outcome);
  const timed: { progress: Progress; startedAt: Date }[] = [];
  for (const p of open) {
    try {
      timed.push({ progress: p, startedAt: eventTime(tx, p.start.startedAt, 'startedAt') });
    } catch (err) {
      p.outcome = { ok: false, error: err };
    }
  }
  const targets = await openLinks(
    tx,
    timed.map(({ progress: { start } }) => ({
      linkId: start.linkId,
      documentId: start.documentId,
      hasEmail: start.viewer.kind === 'email',
    })),
  );
  const checked: Checked[] = [];
  timed.forEach((t, i) => {
    const target = targets[i] ?? linkNotFound();
    if (target instanceof ApiError) t.progress.outcome = { ok: false, error: target };
    else checked.push({ ...t, target });
  });
  await releaseKeys(
    tx,
    open.flatMap((p) => (p.outcome && p.start.ctx.idempotency ? [p.start.ctx.idempotency.key] : [])),
  );
  return checked;
}

/** The views of the starts that passed their checks: rows, deltas, events. */
async function writeViews(tx: WriteTx, checked: Checked[]): Promise<void> {
  const locked = await lockViewers(
    tx,
    checked.map(({ progress, target }) => ({
      roomId: target.roomId,
      viewer: progress.start.viewer,
      newId: newId(tx.now.getTime()),
    })),
  );
  const views: ViewFact[] = checked.map(({ progress: { start }, target, startedAt }, i) => ({
    id: newId(tx.now.getTime()),
    dealRoomId: target.roomId,
    documentId: start.documentId.toLowerCase(),
    linkId: start.linkId,
    viewerId: (locked[i] as LockedViewer).id,
    viewerName: start.viewer.name,
    startedAt,
    durationSeconds: 0,
  }));
  const isInternal = (i: number) => (locked[i] as LockedViewer).internal;
  await insertViews(tx, viewRows(views), {
    ids: views.filter((_, i) => checked[i]?.progress.start.reporting).map((v) => v.id),
    at: tx.now,
    internal: views.filter((_, i) => isInternal(i)).map((v) => v.id),
  });
  // The team's own views are kept, marked, and counted nowhere: no figure, no event.
  const counted = views.filter((_, i) => !isInternal(i));
  // The viewers' figures now; the room's hot rows last, after the events (see deltas.ts).
  const roomFigures =
    counted.length > 0
      ? await applyViewersOfViews(tx, viewRows(counted), { viewersLocked: true })
      : undefined;

  const kinds = checked.map(({ startedAt }, i) => {
    const viewer = locked[i] as LockedViewer;
    if (viewer.internal) return null;
    if (viewer.totalViews === 0) return 'viewer.created' as const;
    const returned =
      viewer.lastViewedAt !== null && startedAt.getTime() - viewer.lastViewedAt.getTime() >= RETURN_AFTER_MS;
    return returned ? ('viewer.returned' as const) : null;
  });
  const viewers = await loadViewers(
    tx,
    views.filter((_, i) => kinds[i] !== null).map((v) => v.viewerId),
  );
  const events: NewEvent[] = [];
  const owners: Progress[] = [];
  checked.forEach(({ progress: p, target: { teamId } }, i) => {
    const view = views[i] as ViewFact;
    const rendered = renderView(view);
    p.outcome = { ok: true, value: rendered };
    if (isInternal(i)) return;
    events.push({ teamId, dealRoomId: view.dealRoomId, type: 'view.started', data: rendered });
    owners.push(p);
    const kind = kinds[i];
    if (kind) {
      const row = viewers.get(view.viewerId);
      if (!row) throw new Error('a viewer with a view has no row');
      events.push({
        teamId,
        dealRoomId: view.dealRoomId,
        type: kind,
        data: { ...toViewer(row), dealRoomId: view.dealRoomId },
      });
      owners.push(p);
    }
  });
  await announceActivity(
    tx,
    counted.map((v) => v.dealRoomId),
  );
  const recorded = await recordEvents(tx, events);
  recorded.forEach((event, i) => {
    owners[i]?.events.push(event);
  });
  await roomFigures?.();
}

export function renderView(view: Omit<View, 'startedAt'> & { startedAt: Date }): View {
  return {
    id: view.id,
    dealRoomId: view.dealRoomId,
    documentId: view.documentId,
    linkId: view.linkId,
    viewerId: view.viewerId,
    startedAt: view.startedAt.toISOString(),
    durationSeconds: view.durationSeconds,
  };
}

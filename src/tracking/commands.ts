import type { Static } from '@sinclair/typebox';
import { applyDownloads, applyViewDurations, applyVisits } from '../aggregates/deltas.ts';
import { downloadRows, visitRows } from '../aggregates/rows.ts';
import { ApiError, fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import { announceActivity } from '../events/activity.ts';
import { recordEvent } from '../events/outbox.ts';
import { queueVisitEmails } from '../notifications/commands.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { completeViewRow, insertDownload, insertVisit, lockedView, lockView } from './repo.ts';
import type { DownloadSchema, VisitSchema } from './schemas.ts';
import { eventTime, linkNotFound, openLink } from './targets.ts';
import { renderView, type View } from './view-starts.ts';
import { lockViewer, type ViewerInput, viewerIdentity } from './viewers.ts';

export type Visit = Static<typeof VisitSchema>;
export type Download = Static<typeof DownloadSchema>;

export async function recordVisit(
  ctx: WriteContext,
  linkId: string,
  input: { viewer: ViewerInput; at?: Date | undefined; verified?: boolean | undefined },
): Promise<Visit> {
  if (!isUuid(linkId)) throw linkNotFound();
  const viewer = viewerIdentity(input.viewer);
  return inWrite(ctx, async (tx) => {
    const at = eventTime(tx, input.at, 'at');
    const target = await openLink(tx, { linkId, hasEmail: viewer.kind === 'email' });
    const id = newId(tx.now.getTime());
    const { id: viewerId, internal } = await lockViewer(tx, target.roomId, viewer, newId(tx.now.getTime()));
    const fact = { id, dealRoomId: target.roomId, linkId, viewerId, at };
    await insertVisit(tx, { ...fact, verified: input.verified === true, internal });
    // The team's own visits are kept, marked, and counted nowhere (and nobody is told).
    if (!internal) {
      await applyVisits(tx, visitRows([fact]));
      // The live feeds show a visit as it happens, before any document is opened.
      await announceActivity(tx, [target.roomId]);
      await queueVisitEmails(tx, ctx, {
        teamId: target.teamId,
        roomId: target.roomId,
        visitId: id,
        viewerId,
        at,
      });
    }
    return { ...fact, at: at.toISOString() };
  });
}

/** A started view is completed with its duration, once. */
export async function completeView(
  ctx: WriteContext,
  viewId: string,
  input: { durationSeconds: number },
): Promise<View> {
  const notFound = () => fail('viewNotFound');
  if (!isUuid(viewId)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const row = await lockView(tx, viewId);
    if (!row) throw notFound();
    if (row.completed_at !== null) throw new ApiError('conflict', 'This view is already completed');
    await completeViewRow(tx, viewId, input.durationSeconds, tx.now);
    // A view opened on the link page may have grown with its reports: only the rest is added.
    const added = input.durationSeconds - row.duration_seconds;
    const view = lockedView(viewId, row, input.durationSeconds);
    const rendered = renderView(view);
    if (row.internal) return rendered;
    await applyViewDurations(tx, [{ ...view, addedSeconds: added }]);
    await recordEvent(tx, { teamId: row.team_id, dealRoomId: row.deal_room_id }, 'view.completed', rendered);
    return rendered;
  });
}

/**
 * A download, allowed when `downloadOverride ?? allowDownload` is true: then counted
 * (download.created); otherwise refused, and the refusal recorded (download.denied).
 */
export async function recordDownload(
  ctx: WriteContext,
  linkId: string,
  input: { documentId: string; viewer: ViewerInput; at?: Date | undefined },
): Promise<{ allowed: boolean; download: Download }> {
  if (!isUuid(linkId)) throw linkNotFound();
  const viewer = viewerIdentity(input.viewer);
  return inWrite(ctx, async (tx) => {
    const at = eventTime(tx, input.at, 'at');
    const target = await openLink(tx, {
      linkId,
      documentId: input.documentId,
      hasEmail: viewer.kind === 'email',
    });
    const { id: viewerId, internal } = await lockViewer(tx, target.roomId, viewer, newId(tx.now.getTime()));
    const fact = {
      id: newId(tx.now.getTime()),
      dealRoomId: target.roomId,
      documentId: input.documentId.toLowerCase(),
      linkId,
      viewerId,
      at,
    };
    const allowed = target.downloadAllowed;
    await insertDownload(tx, { ...fact, internal }, allowed);
    const download = { ...fact, at: at.toISOString() };
    if (internal) return { allowed, download };
    if (allowed) await applyDownloads(tx, downloadRows([fact]));
    await announceActivity(tx, [target.roomId]);
    await recordEvent(
      tx,
      { teamId: target.teamId, dealRoomId: target.roomId },
      allowed ? 'download.created' : 'download.denied',
      download,
    );
    return { allowed, download };
  });
}

import { applyDownloads, applyViewDuration, applyViewersOfViews, applyVisits } from '../aggregates/deltas.ts';
import { downloadRows, viewRows, visitRows } from '../aggregates/rows.ts';
import { ApiError } from '../http/errors.ts';
import { recordEvent } from '../outbox/record.ts';
import { isUuid, newId } from '../shared/ids.ts';
import { toViewer } from '../viewers/service.ts';
import { shareGuards } from '../write/guards.ts';
import { loadViewer } from '../write/load.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import { lockViewer, type ViewerInput, viewerIdentity } from './viewers.ts';

/** How long after the start of their previous view a known viewer's new one is a return. */
export const RETURN_AFTER_MS = 30 * 60 * 1000;
/** Events dated further ahead than this are refused (contract.md section 2). */
const MAX_FUTURE_MS = 5 * 60 * 1000;
const EARLIEST = Date.UTC(2000, 0, 1);

export interface Visit {
  id: string;
  dealRoomId: string;
  linkId: string;
  viewerId: string;
  at: string;
}
export interface View {
  id: string;
  dealRoomId: string;
  documentId: string;
  linkId: string;
  viewerId: string;
  startedAt: string;
  durationSeconds: number;
}
export interface Download {
  id: string;
  dealRoomId: string;
  documentId: string;
  linkId: string;
  viewerId: string;
  at: string;
}

const linkNotFound = () => new ApiError('not_found', 'Link not found');

export async function recordVisit(
  ctx: WriteContext,
  linkId: string,
  input: { viewer: ViewerInput; at?: Date | undefined },
): Promise<Visit> {
  if (!isUuid(linkId)) throw linkNotFound();
  const viewer = viewerIdentity(input.viewer);
  return inWrite(ctx, async (tx) => {
    const at = eventTime(tx, input.at, 'at');
    const target = await openLink(tx, linkId, undefined, viewer.kind === 'email');
    const id = newId(tx.now.getTime());
    const { id: viewerId } = await lockViewer(tx, target.roomId, viewer, newId(tx.now.getTime()));
    const fact = { id, dealRoomId: target.roomId, linkId, viewerId, at };
    await tx.query(
      'INSERT INTO visits (id, deal_room_id, link_id, viewer_id, at) VALUES ($1, $2, $3, $4, $5)',
      [id, target.roomId, linkId, viewerId, at],
    );
    await applyVisits(tx, visitRows([fact]));
    return { ...fact, at: at.toISOString() };
  });
}

/** A view starts: view.started, and viewer.created or viewer.returned for the viewer. */
export async function startView(
  ctx: WriteContext,
  linkId: string,
  input: { documentId: string; viewer: ViewerInput; startedAt?: Date | undefined },
): Promise<View> {
  if (!isUuid(linkId)) throw linkNotFound();
  const viewer = viewerIdentity(input.viewer);
  return inWrite(ctx, async (tx) => {
    const startedAt = eventTime(tx, input.startedAt, 'startedAt');
    const target = await openLink(tx, linkId, input.documentId, viewer.kind === 'email');
    const locked = await lockViewer(tx, target.roomId, viewer, newId(tx.now.getTime()));
    const view = {
      id: newId(tx.now.getTime()),
      dealRoomId: target.roomId,
      documentId: input.documentId.toLowerCase(),
      linkId,
      viewerId: locked.id,
      viewerName: viewer.name,
      startedAt,
      durationSeconds: 0,
    };
    await tx.query(
      `INSERT INTO views (id, deal_room_id, document_id, link_id, viewer_id, viewer_name, started_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [view.id, view.dealRoomId, view.documentId, linkId, view.viewerId, view.viewerName, startedAt],
    );
    // The viewer's figures now; the room's hot rows last, after the events (see deltas.ts).
    const roomFigures = await applyViewersOfViews(tx, viewRows([view]), { viewersLocked: true });
    const rendered = renderView(view);
    await recordEvent(tx, target.teamId, 'view.started', rendered);
    const returned =
      locked.lastViewedAt !== null && startedAt.getTime() - locked.lastViewedAt.getTime() >= RETURN_AFTER_MS;
    if (locked.totalViews === 0 || returned) {
      const row = await loadViewer(tx, locked.id);
      if (!row) throw new Error('a viewer with a view has no row');
      await recordEvent(tx, target.teamId, locked.totalViews === 0 ? 'viewer.created' : 'viewer.returned', {
        ...toViewer(row),
        dealRoomId: target.roomId,
      });
    }
    await roomFigures();
    return rendered;
  });
}

/** A started view is completed with its duration, once. */
export async function completeView(
  ctx: WriteContext,
  viewId: string,
  input: { durationSeconds: number },
): Promise<View> {
  const notFound = () => new ApiError('not_found', 'View not found');
  if (!isUuid(viewId)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const [row] = await tx.query<{
      deal_room_id: string;
      team_id: string;
      document_id: string;
      link_id: string;
      viewer_id: string;
      started_at: Date;
      completed_at: Date | null;
    }>(
      `SELECT v.deal_room_id, r.team_id, v.document_id, v.link_id, v.viewer_id, v.started_at, v.completed_at
         FROM views v JOIN deal_rooms r ON r.id = v.deal_room_id
        WHERE v.id = $1 FOR UPDATE OF v`,
      [viewId],
    );
    if (!row) throw notFound();
    if (row.completed_at !== null) throw new ApiError('conflict', 'This view is already completed');
    await tx.query('UPDATE views SET duration_seconds = $2, completed_at = $3 WHERE id = $1', [
      viewId,
      input.durationSeconds,
      tx.now,
    ]);
    const view = {
      id: viewId,
      dealRoomId: row.deal_room_id,
      documentId: row.document_id,
      linkId: row.link_id,
      viewerId: row.viewer_id,
      startedAt: row.started_at,
      durationSeconds: input.durationSeconds,
    };
    await applyViewDuration(tx, view, input.durationSeconds);
    const rendered = renderView(view);
    await recordEvent(tx, row.team_id, 'view.completed', rendered);
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
    const target = await openLink(tx, linkId, input.documentId, viewer.kind === 'email');
    const { id: viewerId } = await lockViewer(tx, target.roomId, viewer, newId(tx.now.getTime()));
    const fact = {
      id: newId(tx.now.getTime()),
      dealRoomId: target.roomId,
      documentId: input.documentId.toLowerCase(),
      linkId,
      viewerId,
      at,
    };
    const allowed = target.downloadAllowed;
    await tx.query(
      `INSERT INTO ${allowed ? 'downloads' : 'download_refusals'} (id, deal_room_id, document_id, link_id, viewer_id, at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [fact.id, fact.dealRoomId, fact.documentId, linkId, viewerId, at],
    );
    if (allowed) await applyDownloads(tx, downloadRows([fact]));
    const download = { ...fact, at: at.toISOString() };
    await recordEvent(tx, target.teamId, allowed ? 'download.created' : 'download.denied', download);
    return { allowed, download };
  });
}

function renderView(view: Omit<View, 'startedAt'> & { startedAt: Date }): View {
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

function eventTime(tx: WriteTx, given: Date | undefined, field: string): Date {
  const at = given ?? tx.now;
  if (at.getTime() > tx.now.getTime() + MAX_FUTURE_MS) {
    throw new ApiError('validation_error', `${field} must not be more than 5 minutes in the future`);
  }
  if (at.getTime() < EARLIEST) throw new ApiError('validation_error', `${field} must not be before 2000`);
  return at;
}

interface LinkTarget {
  roomId: string;
  teamId: string;
  downloadAllowed: boolean;
}

/**
 * The link an event comes through, checked open (enabled, not expired), and the document
 * it shows. Both are guarded (write/guards.ts): a concurrent delete waits for this write,
 * and this write sees no deleted link or document.
 */
async function openLink(
  tx: WriteTx,
  linkId: string,
  documentId: string | undefined,
  hasEmail: boolean,
): Promise<LinkTarget> {
  // Before reading: a deletion that holds them has committed by the time this reads.
  await shareGuards(tx, documentId !== undefined && isUuid(documentId) ? [linkId, documentId] : [linkId]);
  const [link] = await tx.query<{
    deal_room_id: string;
    team_id: string;
    enabled: boolean;
    expires_at: Date | null;
    requires_email: boolean;
    allow_download: boolean;
    all_documents: boolean;
  }>(
    `SELECT l.deal_room_id, r.team_id, l.enabled, l.expires_at, l.requires_email, l.allow_download, l.all_documents
       FROM links l JOIN deal_rooms r ON r.id = l.deal_room_id
      WHERE l.id = $1`,
    [linkId],
  );
  if (!link) throw linkNotFound();
  if (!link.enabled) throw new ApiError('conflict', 'This link is disabled');
  if (link.expires_at !== null && link.expires_at.getTime() <= tx.now.getTime()) {
    throw new ApiError('conflict', 'This link has expired');
  }
  if (link.requires_email && !hasEmail) {
    throw new ApiError('validation_error', 'viewer.email is required: this link requires an email');
  }
  const target = { roomId: link.deal_room_id, teamId: link.team_id, downloadAllowed: link.allow_download };
  if (documentId === undefined) return target;
  const documentNotFound = () => new ApiError('not_found', 'Document not found on this link');
  if (!isUuid(documentId)) throw documentNotFound();
  const [document] = await tx.query<{ download_override: boolean | null }>(
    `SELECT d.download_override FROM documents d
      WHERE d.id = $1 AND d.deal_room_id = $2 AND d.status = 'published'
        AND ($3 OR EXISTS (SELECT 1 FROM link_documents ld WHERE ld.link_id = $4 AND ld.document_id = d.id))`,
    [documentId, link.deal_room_id, link.all_documents, linkId],
  );
  if (!document) throw documentNotFound();
  return { ...target, downloadAllowed: document.download_override ?? link.allow_download };
}

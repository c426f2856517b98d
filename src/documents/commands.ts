import { applyRoomChange } from '../aggregates/contents.ts';
import { fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import { loadRoom } from '../deal-rooms/repo.ts';
import { recordEvent } from '../events/outbox.ts';
import { removeDocumentEvents } from '../write/cascade.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import { type ReceivedFile, writeVersion } from './files.ts';
import {
  type DocumentFields,
  type DocumentRecord,
  deleteDocumentRow,
  insertDocument,
  loadDocument,
  lockDocumentOrder,
  setDocumentPosition,
  setDocumentStatusRow,
  updateDocumentRow,
} from './repo.ts';
import type { Document } from './schemas.ts';
import { toDocument } from './service.ts';

/** A document as the management API answers it: the read API's fields and its settings. */
export type ManagedDocument = Document & { dealRoomId: string; downloadOverride: boolean | null };

export interface DocumentInput {
  name: string;
  displayName?: string | null | undefined;
  sourceType?: Document['sourceType'] | undefined;
  pageCount?: number | undefined;
  status?: 'draft' | 'published' | undefined;
  position?: number | undefined;
  downloadOverride?: boolean | null | undefined;
}

export type DocumentChanges = Partial<Omit<DocumentInput, 'status'>>;

const notFound = () => fail('documentNotFound');

/**
 * Creates a document; with a file already received and checked (files.ts), the document is
 * created with its content and the page count the file gives, in the one transaction.
 */
export async function createDocument(
  ctx: WriteContext,
  roomId: string,
  input: DocumentInput,
  file?: ReceivedFile,
): Promise<ManagedDocument> {
  if (!isUuid(roomId)) throw fail('dealRoomNotFound');
  return inWrite(ctx, async (tx) => {
    const room = await loadRoom(tx, roomId, 'key share');
    if (!room) throw fail('dealRoomNotFound');
    const id = newId(tx.now.getTime());
    const status = input.status ?? 'draft';
    await insertDocument(
      tx,
      {
        id,
        roomId,
        name: input.name,
        display_name: input.displayName ?? null,
        source_type: input.sourceType ?? 'upload',
        page_count: file?.pageCount ?? input.pageCount ?? 0,
        status,
        position: input.position ?? null,
        download_override: input.downloadOverride ?? null,
      },
      tx.now,
    );
    if (file) await writeVersion(tx, id, file, tx.now);
    await applyRoomChange(tx, roomId, { publishedDocuments: status === 'published' ? 1 : 0 });
    return changed(tx, id, 'document.created');
  });
}

export async function updateDocument(
  ctx: WriteContext,
  id: string,
  changes: DocumentChanges,
): Promise<ManagedDocument> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const document = await loadDocument(tx, id, 'update');
    if (!document) throw notFound();
    const next: DocumentFields = {
      name: changes.name ?? document.name,
      display_name: changes.displayName === undefined ? document.display_name : changes.displayName,
      source_type: changes.sourceType ?? document.source_type,
      page_count: changes.pageCount ?? document.page_count,
      position: changes.position ?? document.position,
      download_override:
        changes.downloadOverride === undefined ? document.download_override : changes.downloadOverride,
    };
    if (Object.entries(next).every(([field, value]) => document[field as keyof typeof next] === value)) {
      return managed(document);
    }
    await updateDocumentRow(tx, id, next, tx.now);
    await applyRoomChange(tx, document.deal_room_id);
    return changed(tx, id, 'document.updated');
  });
}

/** A document's move in its room's order, as the audit log describes it. */
export interface DocumentMove {
  id: string;
  /** The documents whose place changed, with their positions before and after. */
  moved: { id: string; before: number; after: number }[];
}

/**
 * Moves a document one place up or down its room's order, in one transaction: positions
 * become 0, 1, 2... in the new order, each document whose place changed raises
 * document.updated. At either end, nothing changes.
 */
export async function moveDocument(
  ctx: WriteContext,
  id: string,
  direction: 'up' | 'down',
): Promise<DocumentMove> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const document = await loadDocument(tx, id);
    if (!document) throw notFound();
    const order = await lockDocumentOrder(tx, document.deal_room_id);
    const at = order.findIndex((d) => d.id === id);
    const to = direction === 'up' ? at - 1 : at + 1;
    const moved: DocumentMove['moved'] = [];
    if (at < 0 || to < 0 || to >= order.length) return { id, moved };
    const next = order.slice();
    [next[at], next[to]] = [next[to] as (typeof next)[number], next[at] as (typeof next)[number]];
    for (const [position, d] of next.entries()) {
      if (d.position === position) continue;
      await setDocumentPosition(tx, d.id, position, tx.now);
      moved.push({ id: d.id, before: d.position, after: position });
    }
    await applyRoomChange(tx, document.deal_room_id);
    for (const m of moved) await changed(tx, m.id, 'document.updated');
    return { id, moved };
  });
}

/** Publishes (from draft or archived) or unpublishes (back to draft); no change, no event. */
export async function setDocumentPublished(
  ctx: WriteContext,
  id: string,
  published: boolean,
): Promise<ManagedDocument> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const document = await loadDocument(tx, id, 'update');
    if (!document) throw notFound();
    const wasPublished = document.status === 'published';
    if (wasPublished === published) return managed(document);
    await setDocumentStatusRow(tx, id, published ? 'published' : 'draft', tx.now);
    await applyRoomChange(tx, document.deal_room_id, { publishedDocuments: published ? 1 : -1 });
    return changed(tx, id, published ? 'document.published' : 'document.unpublished');
  });
}

/**
 * A document gets a new file, received and checked (files.ts): a new version (the earlier
 * ones kept, with their page figures), the page count it gives and document.updated, in one
 * transaction. Links show the new version at once; nothing of a refused upload reaches this.
 */
export async function storeDocumentFile(
  ctx: WriteContext,
  id: string,
  file: ReceivedFile,
): Promise<ManagedDocument> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const document = await loadDocument(tx, id, 'update');
    if (!document) throw notFound();
    await writeVersion(tx, id, file, tx.now);
    await updateDocumentRow(tx, id, { ...fieldsOf(document), page_count: file.pageCount }, tx.now);
    await applyRoomChange(tx, document.deal_room_id);
    return changed(tx, id, 'document.updated');
  });
}

function fieldsOf(document: DocumentRecord): DocumentFields {
  return {
    name: document.name,
    display_name: document.display_name,
    source_type: document.source_type,
    page_count: document.page_count,
    position: document.position,
    download_override: document.download_override,
  };
}

/** Deletes a document with its views and downloads, taken off every figure. */
export async function deleteDocument(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  await inWrite(ctx, async (tx) => {
    // Waits for the views and downloads in flight, and holds off new ones (write/guards.ts).
    await exclusiveGuards(tx, [id]);
    const document = await loadDocument(tx, id, 'update');
    if (!document) throw notFound();
    await removeDocumentEvents(tx, document.deal_room_id, id);
    await deleteDocumentRow(tx, id);
    await applyRoomChange(tx, document.deal_room_id, {
      publishedDocuments: document.status === 'published' ? -1 : 0,
    });
    await recordEvent(
      tx,
      { teamId: document.team_id, dealRoomId: document.deal_room_id },
      'document.deleted',
      toDocument(document),
    );
  });
}

function managed(document: DocumentRecord): ManagedDocument {
  return {
    ...toDocument(document),
    dealRoomId: document.deal_room_id,
    downloadOverride: document.download_override,
  };
}

async function changed(
  tx: WriteTx,
  id: string,
  type: 'document.created' | 'document.updated' | 'document.published' | 'document.unpublished',
): Promise<ManagedDocument> {
  const document = await loadDocument(tx, id);
  if (!document) throw notFound();
  await recordEvent(
    tx,
    { teamId: document.team_id, dealRoomId: document.deal_room_id },
    type,
    toDocument(document),
  );
  return managed(document);
}

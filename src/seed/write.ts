import { Readable } from 'node:stream';
import { type Clock, ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { createDealRoom, setDealRoomStatus } from '../deal-rooms/commands.ts';
import { createDocument, storeDocumentFile } from '../documents/commands.ts';
import { DEFAULT_FILE_MAX_BYTES, receiveFile } from '../documents/files.ts';
import { datasetRecords } from '../import/dataset.ts';
import { importRecords } from '../import/service.ts';
import { createLink, deactivateLink } from '../links/commands.ts';
import type { FileWork } from '../rendering/pool.ts';
import { createTeam } from '../teams/commands.ts';
import type { WriteContext } from '../write/transaction.ts';
import { demoDataset, demoPages } from './demo.ts';
import { makePdf } from './pdf.ts';

type Raw = Record<string, unknown>;

/**
 * Fills an empty store with the demo: teams, rooms, documents and links are made by the
 * same domain functions as the management API's (each with its event), at the times the
 * demo gives them; the months of tracking history behind them are then loaded by the
 * importer, the bulk path through the same delta module, in one transaction.
 */
export async function writeDemo(db: Database, clock: Clock, work: FileWork): Promise<void> {
  const data = demoDataset(clock.now());
  const at = new ManualClock(clock.now());
  const ctx = { db, clock: at, appUrl: '' };
  const when = (iso: unknown) => at.set(String(iso));
  const ids = new Map<string, string>();
  const id = (demoId: unknown) => ids.get(String(demoId)) ?? String(demoId);

  for (const team of data.teams) {
    await createTeam(ctx, { id: String(team.id), name: String(team.name) });
  }
  for (const room of data.dealRooms) {
    when(room.createdAt);
    const created = await createDealRoom(ctx, String(room.teamId), {
      name: String(room.name),
      description: String(room.description),
    });
    ids.set(String(room.id), created.id);
  }
  for (const document of [...data.documents].sort(byCreation)) {
    when(document.createdAt);
    const created = await createDocument(ctx, id(document.dealRoomId), {
      name: String(document.name),
      displayName: document.displayName as string | null,
      sourceType: document.sourceType as never,
      pageCount: Number(document.pageCount),
      position: Number(document.position),
      status: document.status === 'published' ? 'published' : 'draft',
    });
    ids.set(String(document.id), created.id);
    await storeDemoFile(ctx, work, created.id, String(document.name), Number(document.pageCount));
  }
  for (const link of [...data.links].sort(byCreation)) {
    when(link.createdAt);
    const created = await createLink(ctx, id(link.dealRoomId), {
      name: String(link.name),
      shortId: String(link.shortId),
      requiresEmail: Boolean(link.requiresEmail),
      password: (link.password as string | undefined) ?? null,
      expiresAt: link.expiresAt ? new Date(String(link.expiresAt)) : null,
      allowDownload: link.allowDownload !== false,
    });
    ids.set(String(link.id), created.id);
    if (link.enabled === false) await deactivateLink(ctx, created.id);
  }
  for (const room of data.dealRooms) {
    when(room.updatedAt);
    if (room.status === 'archived') await setDealRoomStatus(ctx, id(room.id), 'archived');
  }

  const event = (raw: Raw) => ({
    ...raw,
    linkId: id(raw.linkId),
    ...(raw.documentId ? { documentId: id(raw.documentId) } : {}),
  });
  await importRecords(
    db,
    clock,
    datasetRecords({
      visits: data.visits.map(event),
      views: data.views.map(event),
      downloads: data.downloads.map(event),
    }),
  );
}

/** Every demo document gets a real PDF of its pages, so the link page has something to show. */
async function storeDemoFile(
  ctx: WriteContext,
  work: FileWork,
  documentId: string,
  name: string,
  pageCount: number,
) {
  const title = name.replace(/\.\w+$/, '');
  const bytes = await makePdf(title, demoPages(title, pageCount));
  const file = await receiveFile(Readable.from([Buffer.from(bytes)]), {
    maxBytes: DEFAULT_FILE_MAX_BYTES,
    work,
  });
  try {
    await storeDocumentFile(ctx, documentId, file);
  } finally {
    await file.discard();
  }
}

const byCreation = (a: Raw, b: Raw) => String(a.createdAt).localeCompare(String(b.createdAt));

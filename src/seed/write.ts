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
 *
 * The rooms are written side by side, each in its own order and on its own clock: while one
 * waits on the store, another's link password is hashed or its document file read, which
 * took a first `npm start` several seconds apart from the store's own work.
 */
export async function writeDemo(db: Database, clock: Clock, work: FileWork): Promise<void> {
  const data = demoDataset(clock.now());
  const ids = new Map<string, string>();
  const id = (demoId: unknown) => ids.get(String(demoId)) ?? String(demoId);
  const inRoom = (roomId: string) => (raw: Raw) => String(raw.dealRoomId) === roomId;

  const teamsCtx = { db, clock: new ManualClock(clock.now()), appUrl: '' };
  for (const team of data.teams) {
    await createTeam(teamsCtx, { id: String(team.id), name: String(team.name) });
  }
  const writeRoom = async (room: Raw) => {
    const roomId = String(room.id);
    const at = new ManualClock(clock.now());
    const ctx = { db, clock: at, appUrl: '' };
    const when = (iso: unknown) => at.set(String(iso));

    when(room.createdAt);
    const created = await createDealRoom(ctx, String(room.teamId), {
      name: String(room.name),
      description: String(room.description),
    });
    ids.set(roomId, created.id);
    for (const document of data.documents.filter(inRoom(roomId)).sort(byCreation)) {
      when(document.createdAt);
      const made = await createDocument(ctx, created.id, {
        name: String(document.name),
        displayName: document.displayName as string | null,
        sourceType: document.sourceType as never,
        pageCount: Number(document.pageCount),
        position: Number(document.position),
        status: document.status === 'published' ? 'published' : 'draft',
      });
      ids.set(String(document.id), made.id);
      await storeDemoFile(ctx, work, made.id, String(document.name), Number(document.pageCount));
    }
    for (const link of data.links.filter(inRoom(roomId)).sort(byCreation)) {
      when(link.createdAt);
      const made = await createLink(ctx, created.id, {
        name: String(link.name),
        shortId: String(link.shortId),
        requiresEmail: Boolean(link.requiresEmail),
        password: (link.password as string | undefined) ?? null,
        expiresAt: link.expiresAt ? new Date(String(link.expiresAt)) : null,
        allowDownload: link.allowDownload !== false,
      });
      ids.set(String(link.id), made.id);
      if (link.enabled === false) await deactivateLink(ctx, made.id);
    }
    when(room.updatedAt);
    if (room.status === 'archived') await setDealRoomStatus(ctx, created.id, 'archived');
  };
  const written = await Promise.allSettled(data.dealRooms.map(writeRoom));
  const failed = written.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;

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

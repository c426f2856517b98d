import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { roomDocuments, teamDocument } from '../dashboard/repo.ts';
import type { Database } from '../db/database.ts';
import { linkByShortId } from '../link-page/repo.ts';
import { load, make } from '../testing/fixtures.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';

describe.each(storeKinds())("a document's file, joined: its newest version (%s store)", (kind) => {
  let store: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');

  beforeAll(async () => {
    store = await openTestStore(kind);
  });
  afterAll(async () => {
    await store?.close();
  });

  const addVersion = async (documentId: string, version: number, contentType: string, pagesReady: number) => {
    const id = randomUUID();
    await store.query(
      `INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks,
                                      page_count, pages_ready, uploaded_at)
       VALUES ($1, $2, $3, $4, $5, 'x', 0, 3, $6, now())`,
      [id, documentId, version, contentType, 100 * version, pagesReady],
    );
    return id;
  };

  it('on the link page and in the dashboard: the newest of three versions, and none for a document without a file', async () => {
    const team = make.team();
    const room = make.room(team.id);
    const deck = make.document(room.id, { name: 'Deck.pdf', position: 1 });
    const bare = make.document(room.id, { name: 'No file yet.pdf', position: 2 });
    const link = make.link(room.id, { requiresEmail: false });
    // Another room's document, with versions of its own: never one of this room's files.
    const other = make.room(team.id);
    const elsewhere = make.document(other.id, { name: 'Elsewhere.pdf' });
    await load(store, clock, {
      teams: [team],
      dealRooms: [room, other],
      documents: [deck, bare, elsewhere],
      links: [link],
    });
    // Written out of order: the newest is the highest version, not the last row written.
    await addVersion(deck.id, 1, 'application/pdf', 3);
    const newest = await addVersion(deck.id, 3, 'image/png', 1);
    await addVersion(deck.id, 2, 'image/jpeg', 2);
    await addVersion(elsewhere.id, 7, 'application/pdf', 3);

    const shown = await linkByShortId(store, link.shortId as string, 'all');
    expect(shown?.documents.map((d) => [d.id, d.file_type, d.version_id, d.pages_ready])).toEqual([
      [deck.id, 'image/png', newest, 1],
      [bare.id, null, null, null],
    ]);
    const one = await linkByShortId(store, link.shortId as string, { id: deck.id });
    expect(one?.documents.map((d) => d.version_id)).toEqual([newest]);

    const listed = await roomDocuments(store, team.id, room.id);
    expect(listed.map((d) => [d.id, d.file_type, d.version, d.size_bytes, d.pages_ready])).toEqual([
      [deck.id, 'image/png', 3, 300, 1],
      [bare.id, null, null, null, null],
    ]);
    expect(await teamDocument(store, team.id, deck.id)).toMatchObject({ file_type: 'image/png', version: 3 });
    expect(await teamDocument(store, team.id, bare.id)).toMatchObject({ file_type: null, version: null });
  });
});

import { describe, expect, it } from 'vitest';
import { sharedFileWork } from '../rendering/pool.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { managedRoom, putFile, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';
import { renderNext, type Wishes } from './renderer.ts';

describe.each(storeKinds())('the renderer (%s store)', { timeout: 120_000 }, (kind) => {
  const s = useManagement(kind);

  const upload = async (pages: number) => {
    const { documentId } = await managedRoom(s.admin, { team: 'Render', room: 'Room', link: 'Link' });
    const put = await putFile(s.admin, documentId, await numberedPdf(pages), 'application/pdf');
    expect(put.statusCode).toBe(200);
    s.clock.advance(1000);
    return documentId;
  };
  const ready = async (documentId: string) =>
    (
      await s.db.query<{ pages_ready: number }>(
        'SELECT pages_ready FROM document_files WHERE document_id = $1',
        [documentId],
      )
    )[0]?.pages_ready;
  const next = () => renderNext({ db: s.db, work: sharedFileWork(), clock: s.clock });

  it('draws page 1 of every document first, then the rest of each, and stops when all are drawn', async () => {
    const long = await upload(6);
    const short = await upload(2);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([1, 0]);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([1, 1]);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([6, 1]);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([6, 2]);
    expect(await next()).toBe(false);
    const images = await s.db.query<{ n: number }>('SELECT count(*)::int AS n FROM page_images');
    expect(images[0]?.n).toBe(8 * 3);
  });

  it('draws only the newest version of a document: one replaced before its turn never', async () => {
    const documentId = await upload(3);
    const put = await putFile(s.admin, documentId, await numberedPdf(2), 'application/pdf');
    expect(put.statusCode).toBe(200);
    expect(await next()).toBe(true);
    expect(await next()).toBe(true);
    expect(await next()).toBe(false);
    const drawn = await s.db.query<{ version: number; pages_ready: number; images: number }>(
      `SELECT v.version, v.pages_ready,
              (SELECT count(*)::int FROM page_images i WHERE i.version_id = v.id) AS images
         FROM document_versions v WHERE v.document_id = $1 ORDER BY v.version`,
      [documentId],
    );
    expect(drawn).toEqual([
      { version: 1, pages_ready: 0, images: 0 },
      { version: 2, pages_ready: 2, images: 2 * 3 },
    ]);
  });

  const versionOf = async (documentId: string) =>
    (
      await s.db.query<{ id: string }>('SELECT id FROM document_versions WHERE document_id = $1', [
        documentId,
      ])
    )[0]?.id as string;

  it('draws first the version a viewer waits for, and lets a long one go when a viewer comes to wait for another', async () => {
    const long = await upload(6);
    const short = await upload(2);
    const waited = await upload(3);
    const drawnWishes: string[] = [];
    // A viewer waits for the last upload: its page 1 first, then the rest of it, then it is done.
    const waitedVersion = await versionOf(waited);
    const forWaited: Wishes = {
      list: () => [{ id: waitedVersion, at: 0 }],
      drawn: (drawn) => drawnWishes.push(drawn),
    };
    expect(
      await renderNext({ db: s.db, work: sharedFileWork(), clock: s.clock }, { wishes: forWaited }),
    ).toBe(true);
    expect([await ready(long), await ready(short), await ready(waited)]).toEqual([0, 0, 1]);
    expect(
      await renderNext({ db: s.db, work: sharedFileWork(), clock: s.clock }, { wishes: forWaited }),
    ).toBe(true);
    expect([await ready(long), await ready(short), await ready(waited)]).toEqual([0, 0, 3]);
    expect(drawnWishes).toEqual([waitedVersion]);
    // Nobody waits: page 1 of each in upload order.
    expect(await next()).toBe(true);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([1, 1]);
    // The long one's other pages are under way when a viewer comes to wait for the short one:
    // the long one is let go after the pages being drawn, and the short one is drawn next.
    let calls = 0;
    const shortVersion = await versionOf(short);
    const comesLater: Wishes = {
      list: () => (calls++ === 0 ? [] : [{ id: shortVersion, at: Date.now() }]),
      drawn: (drawn) => drawnWishes.push(drawn),
    };
    expect(
      await renderNext({ db: s.db, work: sharedFileWork(), clock: s.clock }, { wishes: comesLater }),
    ).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([5, 1]);
    const [claim] = await s.db.query<{ free: boolean }>(
      'SELECT render_claimed_until IS NULL AS free FROM document_versions WHERE id = $1',
      [await versionOf(long)],
    );
    expect(claim?.free).toBe(true);
    expect(
      await renderNext({ db: s.db, work: sharedFileWork(), clock: s.clock }, { wishes: comesLater }),
    ).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([5, 2]);
    expect(await next()).toBe(true);
    expect([await ready(long), await ready(short)]).toEqual([6, 2]);
    expect(await next()).toBe(false);
  });
});

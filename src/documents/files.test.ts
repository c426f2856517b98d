import { randomBytes } from 'node:crypto';
import { createCanvas } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { numberedPdf } from '../seed/pdf.ts';
import { pageTreeBomb } from '../testing/hostile-files.ts';
import { ADMIN_TOKEN, managedRoom, putFile, recordedEvents, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';
import { fileChunks, type StoredFile, storedFile } from './files.ts';

const MAX = 3 * 1024 * 1024;
// The smallest valid PNG: a 1×1 transparent pixel.
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5f0000000049454e44ae426082',
  'hex',
);

// Megabytes through the embedded store's thread take many seconds when the machine is busy.
describe.each(storeKinds())('document files (%s store)', { timeout: 120_000 }, (kind) => {
  const s = useManagement(kind, undefined, { fileMaxBytes: MAX });

  const put = (documentId: string, bytes: Uint8Array, type?: string) =>
    putFile(s.admin, documentId, bytes, type);
  const get = (documentId: string) =>
    s.admin.app.inject({
      url: `/documents/${documentId}/file`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });

  it('stores a PDF whatever its declared type, takes its page count, raises document.updated, and gives it back', async () => {
    const { documentId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    const pdf = await numberedPdf(3);
    const stored = await put(documentId, pdf, 'text/plain');
    expect(stored.statusCode).toBe(200);
    expect(stored.json().data).toMatchObject({ id: documentId, pageCount: 3 });
    const [event] = (await recordedEvents(s.db)).filter((e) => e.type === 'document.updated').slice(-1);
    expect(event?.data).toMatchObject({ id: documentId, pageCount: 3 });
    const back = await get(documentId);
    expect(back.statusCode).toBe(200);
    expect(back.headers['content-type']).toBe('application/pdf');
    expect(Buffer.compare(back.rawPayload, Buffer.from(pdf))).toBe(0);
  });

  it('keeps files of several chunks whole, and an image is one page', async () => {
    const { documentId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    // A real JPEG, with bytes after its end (which readers of JPEG ignore) to span several chunks.
    const jpeg = await createCanvas(64, 48).encode('jpeg');
    const big = Buffer.concat([jpeg, randomBytes(MAX - jpeg.length)]);
    const stored = await put(documentId, big, 'image/jpeg');
    expect(stored.statusCode).toBe(200);
    expect(stored.json().data.pageCount).toBe(1);
    const back = await get(documentId);
    expect(back.headers['content-type']).toBe('image/jpeg');
    expect(back.rawPayload.length).toBe(MAX);
    expect(Buffer.compare(back.rawPayload, big)).toBe(0);
    expect((await put(documentId, PNG, 'application/pdf')).json().data.pageCount).toBe(1);
    expect((await get(documentId)).headers['content-type']).toBe('image/png');
  });

  it('refuses other content (415) and too large a file (413), leaving the stored file as it was', async () => {
    const { documentId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    const pdf = await numberedPdf(2);
    expect((await put(documentId, pdf)).statusCode).toBe(200);
    const events = (await recordedEvents(s.db)).length;
    for (const bytes of [
      Buffer.from('<html>not a pdf</html>'),
      Buffer.from('%PDF-1.7 but nothing else at all'),
      Buffer.alloc(0),
    ]) {
      const refused = await put(documentId, bytes, 'application/pdf');
      expect(refused.statusCode).toBe(415);
      expect(refused.json()).toEqual({
        error: expect.stringMatching(/PDF, PNG or JPEG|cannot be read/),
        code: 'unsupported_media_type',
      });
    }
    const tooLarge = await put(documentId, Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX)]));
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toEqual({
      error: `The file must be at most ${MAX} bytes`,
      code: 'payload_too_large',
    });
    expect(Buffer.compare((await get(documentId)).rawPayload, Buffer.from(pdf))).toBe(0);
    expect((await s.admin.get(`/documents/${documentId}/pages?period=all`)).body.data.pageCount).toBe(2);
    expect((await recordedEvents(s.db)).length).toBe(events);
  });

  it('replaces a file with a new version: what was read of the old one stays whole, its views and figures kept', async () => {
    const { documentId, linkId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    const jpeg = await createCanvas(64, 48).encode('jpeg');
    const first = Buffer.concat([jpeg, randomBytes(MAX - jpeg.length)]);
    expect((await put(documentId, first)).statusCode).toBe(200);
    const view = await s.admin.post(`/links/${linkId}/views`, {
      documentId,
      viewer: { email: 'a@b.example' },
    });
    expect(view.status).toBe(201);
    // A download of version 1 is under way: its first chunk is read, then the file is replaced.
    const old = (await storedFile(s.db, documentId)) as StoredFile;
    const chunks = fileChunks(s.db, old);
    const read: Buffer[] = [(await chunks.next()).value as Buffer];
    const pdf = await numberedPdf(4);
    const replaced = await put(documentId, pdf);
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().data.pageCount).toBe(4);
    for await (const chunk of chunks) read.push(chunk);
    // Every byte of the download is version 1's, none of version 2's.
    expect(Buffer.compare(Buffer.concat(read), first)).toBe(0);
    expect(Buffer.compare((await get(documentId)).rawPayload, Buffer.from(pdf))).toBe(0);
    const now = (await storedFile(s.db, documentId)) as StoredFile;
    expect(now).toMatchObject({ version: 2, pageCount: 4, type: 'application/pdf' });
    const versions = await s.db.query<{ version: number; views: number }>(
      `SELECT dv.version, (SELECT count(*)::int FROM views v WHERE v.version_id = dv.id) AS views
         FROM document_versions dv WHERE dv.document_id = $1 ORDER BY dv.version`,
      [documentId],
    );
    expect(versions).toEqual([
      { version: 1, views: 1 },
      { version: 2, views: 0 },
    ]);
    const updated = (await recordedEvents(s.db)).filter(
      (e) => e.type === 'document.updated' && e.data.id === documentId,
    );
    expect(updated).toHaveLength(2);
  });

  it('refuses a PDF whose page tree claims 2^30 pages with 422 unprocessable_file, changing nothing', async () => {
    const { documentId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    const events = (await recordedEvents(s.db)).length;
    const refused = await put(documentId, pageTreeBomb(30));
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toEqual({ error: expect.any(String), code: 'unprocessable_file' });
    expect(refused.body).not.toMatch(/1073741824|stack|at /);
    expect((await get(documentId)).statusCode).toBe(404);
    expect((await recordedEvents(s.db)).length).toBe(events);
  });

  it('answers 404 for a document without a file or that does not exist', async () => {
    const { documentId } = await managedRoom(s.admin, { team: 'Files', room: 'Room', link: 'Link' });
    expect((await get(documentId)).statusCode).toBe(404);
    expect((await put('00000000-0000-4000-8000-000000000000', PNG)).statusCode).toBe(404);
    expect((await put('not-a-uuid', PNG)).statusCode).toBe(404);
    expect((await s.admin.get('/documents/not-a-uuid/pages')).status).toBe(404);
  });
});

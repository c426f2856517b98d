import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { sharedFileWork } from '../rendering/pool.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { ADMIN_TOKEN, managedRoom, managementClient } from '../testing/management.ts';
import { openTestStore } from '../testing/stores.ts';
import { renderNext } from './renderer.ts';

describe('the renderer', { timeout: 120_000 }, () => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  beforeAll(async () => {
    db = await openTestStore('embedded');
    admin = await managementClient(db, clock);
  });
  afterAll(async () => {
    await admin?.app.close();
    await db?.close();
  });

  const upload = async (pages: number) => {
    const { documentId } = await managedRoom(admin, { team: 'Render', room: 'Room', link: 'Link' });
    const put = await admin.app.inject({
      method: 'PUT',
      url: `/documents/${documentId}/file`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/pdf' },
      payload: Buffer.from(await numberedPdf(pages)),
    });
    expect(put.statusCode).toBe(200);
    clock.advance(1000);
    return documentId;
  };
  const ready = async (documentId: string) =>
    (
      await db.query<{ pages_ready: number }>(
        'SELECT pages_ready FROM document_files WHERE document_id = $1',
        [documentId],
      )
    )[0]?.pages_ready;
  const next = () => renderNext({ db, work: sharedFileWork(), clock });

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
    const images = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM page_images');
    expect(images[0]?.n).toBe(8 * 3);
  });
});

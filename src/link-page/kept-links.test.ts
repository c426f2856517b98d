import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { countedQueries } from '../testing/counted.ts';
import { load, make } from '../testing/fixtures.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { type KeptLinks, keptLinks } from './kept-links.ts';
import type { ShownLink } from './repo.ts';

describe.each(storeKinds())('the link pages’ links, kept where exact (%s store)', (kind) => {
  let store: Database;
  /** Statements the kept links sent to the store. */
  let reads = { n: 0 };
  let links: KeptLinks;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');

  beforeAll(async () => {
    store = await openTestStore(kind);
    const counted = countedQueries(store);
    reads = counted.counter;
    links = keptLinks(counted.db);
  });
  afterAll(async () => {
    await links?.close();
    await store?.close();
  });

  /** A room with two published documents, the first with a file of three pages, and a link to both. */
  async function linked() {
    const team = make.team();
    const room = make.room(team.id);
    const first = make.document(room.id, { name: 'First.pdf', position: 1 });
    const second = make.document(room.id, { name: 'Second.pdf', position: 2 });
    const link = make.link(room.id, { requiresEmail: false });
    await load(store, clock, { teams: [team], dealRooms: [room], documents: [first, second], links: [link] });
    const versionId = randomUUID();
    await store.query(
      `INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks,
                                      page_count, pages_ready, uploaded_at)
       VALUES ($1, $2, 1, 'application/pdf', 100, 'x', 0, 3, 1, now())`,
      [versionId, first.id],
    );
    return {
      room: room.id,
      first: first.id,
      second: second.id,
      link: link.id,
      shortId: link.shortId as string,
      versionId,
    };
  }

  const titles = (link: ShownLink | undefined) => link?.documents.map((d) => d.title);

  it('shows every change to what a link page shows at the next read', async () => {
    const { room, first, second, link, shortId, versionId } = await linked();
    const all = () => links.find(shortId, 'all');
    const one = () => links.find(shortId, { id: first });
    const changes: [string, unknown[], () => Promise<unknown>, unknown][] = [
      [
        'UPDATE links SET name = $2 WHERE id = $1',
        [link, 'Renamed'],
        async () => (await all())?.name,
        'Renamed',
      ],
      ['UPDATE links SET watermark = true WHERE id = $1', [link], async () => (await one())?.watermark, true],
      [
        'UPDATE links SET allow_download = false WHERE id = $1',
        [link],
        async () => (await one())?.documents[0]?.download_allowed,
        false,
      ],
      [
        'UPDATE links SET password_hash = $2 WHERE id = $1',
        [link, 'hash'],
        async () => (await all())?.password_hash,
        'hash',
      ],
      [
        'UPDATE links SET verify_email = true WHERE id = $1',
        [link],
        async () => (await all())?.requires_email,
        true,
      ],
      [
        "UPDATE links SET agreement = 'Keep it quiet' WHERE id = $1",
        [link],
        async () => (await all())?.has_agreement,
        true,
      ],
      [
        'UPDATE links SET expires_at = $2 WHERE id = $1',
        [link, new Date('2026-06-01T00:00:00Z')],
        async () => (await all())?.expires_at?.toISOString(),
        '2026-06-01T00:00:00.000Z',
      ],
      [
        'UPDATE documents SET display_name = $2 WHERE id = $1',
        [first, 'Shown name'],
        async () => titles(await all()),
        ['Shown name', 'Second.pdf'],
      ],
      [
        'UPDATE documents SET position = 3 WHERE id = $1',
        [first],
        async () => titles(await all()),
        ['Second.pdf', 'Shown name'],
      ],
      [
        "UPDATE documents SET status = 'draft' WHERE id = $1",
        [second],
        async () => titles(await all()),
        ['Shown name'],
      ],
      [
        'UPDATE documents SET download_override = true WHERE id = $1',
        [first],
        async () => (await one())?.documents[0]?.download_allowed,
        true,
      ],
      [
        'UPDATE document_versions SET pages_ready = 3 WHERE id = $1',
        [versionId],
        async () => (await one())?.documents[0]?.pages_ready,
        3,
      ],
      [
        'UPDATE deal_rooms SET name = $2 WHERE id = $1',
        [room, 'New room name'],
        async () => (await all())?.room_name,
        'New room name',
      ],
      ['UPDATE links SET all_documents = false WHERE id = $1', [link], async () => titles(await all()), []],
      [
        'INSERT INTO link_documents (link_id, document_id) VALUES ($1, $2)',
        [link, first],
        async () => titles(await all()),
        ['Shown name'],
      ],
      [
        "INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks, page_count, pages_ready, uploaded_at) VALUES ($1, $2, 2, 'image/png', 1, 'y', 0, 1, 0, now())",
        [randomUUID(), first],
        async () => (await one())?.documents[0]?.file_type,
        'image/png',
      ],
      ['UPDATE links SET enabled = false WHERE id = $1', [link], async () => (await all())?.enabled, false],
      ['DELETE FROM links WHERE id = $1', [link], async () => all(), undefined],
    ];
    for (const [sql, params, read, expected] of changes) {
      await read(); // kept, where kept
      await store.query(sql, params);
      expect(await read(), sql).toEqual(expected);
    }
  });

  it('shows a link made after its short id was asked for', async () => {
    const shortId = `later-${randomUUID().slice(0, 8)}`;
    expect(await links.find(shortId)).toBeUndefined();
    const { room } = await linked();
    await load(store, clock, { links: [make.link(room, { shortId })] });
    expect((await links.find(shortId))?.enabled).toBe(true);
  });

  it('shows a change the moment its transaction has committed', async () => {
    const { link, shortId } = await linked();
    expect((await links.find(shortId))?.name).toBe('Investors');
    await store.transaction(async (tx) => {
      await tx.query("UPDATE links SET name = 'In a transaction' WHERE id = $1", [link]);
      // Not before: the transaction may still roll back.
      expect((await links.find(shortId))?.name).toBe('Investors');
    });
    expect((await links.find(shortId))?.name).toBe('In a transaction');
  });

  it('reads a link once on the embedded store however often it is asked while views are counted (on PostgreSQL, every time)', async () => {
    const { room, first, link, shortId, versionId } = await linked();
    await links.find(shortId, { id: first });
    const before = reads.n;
    // What tracking and rendering write: counters, figures and claims, none of them shown.
    await store.query('UPDATE links SET total_clicks = total_clicks + 1 WHERE id = $1', [link]);
    await store.query('UPDATE documents SET total_views = total_views + 1 WHERE id = $1', [first]);
    await store.query('UPDATE deal_rooms SET figures_version = figures_version + 1 WHERE id = $1', [room]);
    await store.query('UPDATE document_versions SET render_claimed_until = now() WHERE id = $1', [versionId]);
    for (let i = 0; i < 5; i++) expect((await links.find(shortId, { id: first }))?.id).toBe(link);
    expect(reads.n - before).toBe(kind === 'embedded' ? 0 : 5);
    // What is kept is shared: nobody may change it.
    const kept = await links.find(shortId, { id: first });
    if (kind === 'embedded') expect(() => Object.assign(kept as object, { enabled: false })).toThrow();
  });
});

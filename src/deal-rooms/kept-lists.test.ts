import { describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import {
  createDocument,
  deleteDocument,
  moveDocument,
  setDocumentPublished,
  updateDocument,
} from '../documents/commands.ts';
import { createLink, deactivateLink, deleteLink, updateLink } from '../links/commands.ts';
import { TEST_APP_URL, testApp } from '../testing/app.ts';
import { countedQueries } from '../testing/counted.ts';
import { teamWithKey, viewedRoom } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { completeView, recordVisit } from '../tracking/commands.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';
import { createDealRoom, deleteDealRoom, setDealRoomStatus, updateDealRoom } from './commands.ts';

const LISTS = ['documents', 'links', 'viewers'] as const;

describe.each(storeKinds())('the rooms’ lists as one-query reads (%s store)', (kind) => {
  const s = useApi(kind); // now: 2026-05-20T12:00:00.000Z

  /** A process that keeps nothing: what every list must read like. */
  const keepingNothing = () =>
    buildApp({
      db: s.db,
      clock: s.clock,
      appUrl: TEST_APP_URL,
      logger: { level: 'silent' },
      listCacheBytes: 0,
    });

  const room = () =>
    viewedRoom(s.db, s.clock, {
      document: { position: 1 },
      link: { expiresAt: '2026-05-20T13:00:00.000Z' },
      viewer: { email: 'ann@buyer.example' },
    });

  it('answers a repeated page with one query, the same body and ETag; If-None-Match gets a 304', async () => {
    const { key, roomId } = await room();
    const { db, counter } = countedQueries(s.db);
    const api = await testApp(db, s.clock);
    try {
      for (const list of LISTS) {
        const url = `/v1/deal-rooms/${roomId}/${list}?per_page=5`;
        const first = await api.get(url, key);
        const before = counter.n;
        const second = await api.get(url, key);
        expect(first.status, list).toBe(200);
        expect(first.body.data, list).toHaveLength(1);
        expect(second.raw, list).toBe(first.raw);
        expect(second.headers.etag, list).toBe(first.headers.etag);
        expect(second.headers['content-type'], list).toBe('application/json; charset=utf-8');
        expect(counter.n - before, `${list}: the room's version is the one query`).toBe(1);
        const again = await api.get(url, key, { 'if-none-match': String(first.headers.etag) });
        expect(again.status, list).toBe(304);
        expect(again.raw, list).toBe('');
        // Another page is another body.
        expect((await api.get(`${url}&page=2`, key)).body.data, list).toEqual([]);
      }
      // Another team's key finds no room, kept or not.
      const stranger = await teamWithKey(s.db, s.clock);
      for (const list of LISTS) {
        expect(
          (await api.get(`/v1/deal-rooms/${roomId}/${list}?per_page=5`, stranger.key)).status,
          list,
        ).toBe(404);
      }
    } finally {
      await api.app.close();
    }
  });

  it('follows every write at once, whichever process wrote, and a link expiring with no write at all', async () => {
    const { teamId, key, roomId, docId, linkId } = await room();
    const other = await testApp(s.db, s.clock);
    const fresh = await keepingNothing();
    try {
      const read = async () => {
        const pages: Record<string, unknown> = {};
        for (const list of LISTS) {
          const url = `/v1/deal-rooms/${roomId}/${list}`;
          const [a, b] = [await s.api.get(url, key), await other.get(url, key)];
          const c = await fresh.inject({ url, headers: { authorization: `Bearer ${key}` } });
          expect(a.raw, list).toBe(c.body);
          expect(b.raw, list).toBe(c.body);
          pages[list] = a.body.data;
        }
        return pages as Record<(typeof LISTS)[number], Record<string, unknown>[]>;
      };
      await read();
      const ctx = { db: s.db, clock: s.clock, appUrl: '' };
      const team = { ...ctx, teamId };

      await recordVisit(ctx, linkId, { viewer: { email: 'bo@buyer.example', name: 'Bo' } });
      expect((await read()).links[0]?.totalClicks).toBe(1);
      const view = await createViewStartWriter()(ctx, linkId, {
        documentId: docId,
        viewer: { email: 'bo@buyer.example', name: 'Bo' },
      });
      expect((await read()).viewers.map((v) => v.email)).toEqual(['bo@buyer.example', 'ann@buyer.example']);
      await completeView(ctx, view.id, { durationSeconds: 90 });
      expect((await read()).viewers[0]?.totalDurationSeconds).toBe(90);

      await updateDocument(team, docId, { name: 'Deck (final)' });
      expect((await read()).documents.map((d) => d.name)).toEqual(['Deck (final)']);
      const second = await createDocument(team, roomId, { name: 'Model', status: 'published', position: 2 });
      expect((await read()).documents.map((d) => d.name)).toEqual(['Deck (final)', 'Model']);
      await moveDocument(team, second.id, 'up');
      expect((await read()).documents.map((d) => d.name)).toEqual(['Model', 'Deck (final)']);
      await setDocumentPublished(team, second.id, false);
      expect((await read()).documents.map((d) => d.name)).toEqual(['Deck (final)']);
      await deleteDocument(team, second.id);
      await read();

      await updateLink(team, linkId, { name: 'Main (renamed)' });
      const renamed = await read();
      expect(renamed.links[0]?.name).toBe('Main (renamed)');
      expect(renamed.viewers[0]?.linkName).toBe('Main (renamed)');
      const added = await createLink(team, roomId, { name: 'Second', password: 'a long password' });
      expect((await read()).links.map((l) => l.requiresPassword)).toEqual([true, false]);
      await deactivateLink(team, added.id);
      expect((await read()).links.map((l) => l.isActive)).toEqual([false, true]);
      await deleteLink(team, added.id);
      expect((await read()).links).toHaveLength(1);

      // No write: the link expires at 13:00, and its page says so from then on.
      s.clock.set('2026-05-20T13:00:00.000Z');
      expect((await read()).links[0]?.isActive).toBe(false);
    } finally {
      s.clock.set('2026-05-20T12:00:00.000Z');
      await other.app.close();
      await fresh.close();
    }
  });

  it('keeps the team’s rooms list and each room too: one query for a repeated read, and every write seen at once', async () => {
    const { teamId, key, roomId, docId, linkId } = await room();
    const ctx = { db: s.db, clock: s.clock, appUrl: '' };
    const team = { ...ctx, teamId };
    const second = await createDealRoom(team, teamId, { name: 'Second room' });
    const { db, counter } = countedQueries(s.db);
    const api = await testApp(db, s.clock);
    const fresh = await keepingNothing();
    const URLS = [
      '/v1/deal-rooms',
      '/v1/deal-rooms?status=archived',
      '/v1/deal-rooms?per_page=1&page=2',
      '/v1/deal-rooms?per_page=1',
    ];
    try {
      const first = await api.get(URLS[0] as string, key);
      const before = counter.n;
      const again = await api.get(URLS[0] as string, key);
      expect(again.raw).toBe(first.raw);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(counter.n - before, "the page's stamp is the one query").toBe(1);
      expect(
        (await api.get(URLS[0] as string, key, { 'if-none-match': String(first.headers.etag) })).status,
      ).toBe(304);
      const stranger = (await teamWithKey(s.db, s.clock)).key;
      expect((await api.get(URLS[0] as string, stranger)).body.data).toEqual([]);
      const detailUrl = `/v1/deal-rooms/${roomId}`;
      const detail = await api.get(detailUrl, key);
      const counted = counter.n;
      const detailAgain = await api.get(detailUrl, key);
      expect(detailAgain.raw).toBe(detail.raw);
      expect(detailAgain.headers.etag).toBe(detail.headers.etag);
      expect(counter.n - counted, "the room row's version is the one query").toBe(1);
      expect((await api.get(detailUrl, key, { 'if-none-match': String(detail.headers.etag) })).status).toBe(
        304,
      );
      expect((await api.get(detailUrl, stranger)).status).toBe(404);

      /** The lists' pages; the room's detail is read too, and must be what they show of it. */
      const read = async () => {
        const pages: Record<string, unknown>[][] = [];
        for (const url of [...URLS, detailUrl]) {
          const [a, b] = [await api.get(url, key), await s.api.get(url, key)];
          const c = await fresh.inject({ url, headers: { authorization: `Bearer ${key}` } });
          expect(a.raw, url).toBe(c.body);
          expect(b.raw, url).toBe(c.body);
          if (url !== detailUrl) pages.push(a.body.data);
          else if (a.status === 200) {
            const listed = pages[0]?.find((r) => r.id === roomId);
            expect(a.body.data, url).toMatchObject(listed ?? {});
          }
        }
        return pages;
      };
      const names = async () => (await read())[0]?.map((r) => r.name);
      expect(await names()).toEqual(['Second room', expect.any(String)]);

      await createViewStartWriter()(ctx, linkId, {
        documentId: docId,
        viewer: { email: 'bo@buyer.example' },
      });
      expect((await read())[0]?.find((r) => r.id === roomId)?.totalViews).toBe(2);
      await createDocument(team, roomId, { name: 'Model', status: 'published', position: 2 });
      expect((await read())[0]?.find((r) => r.id === roomId)?.documentCount).toBe(2);
      await createLink(team, roomId, { name: 'Second' });
      expect((await read())[0]?.find((r) => r.id === roomId)?.linkCount).toBe(2);
      // Renaming moves the room to the top; the second page is then the other room.
      s.clock.advance(1000);
      await updateDealRoom(team, roomId, { name: 'Renamed' });
      expect(await names()).toEqual(['Renamed', 'Second room']);
      expect((await read())[2]?.map((r) => r.name)).toEqual(['Second room']);
      // Same name again with a changed description, in the same millisecond: still seen.
      await updateDealRoom(team, roomId, { description: 'Now described' });
      expect((await read())[0]?.[0]?.description).toBe('Now described');
      await setDealRoomStatus(team, second.id, 'archived');
      expect((await read())[1]?.map((r) => r.name)).toEqual(['Second room']);
      s.clock.advance(1000);
      await updateDealRoom(team, roomId, { name: 'Final' });
      expect((await read())[3]?.map((r) => r.name)).toEqual(['Final']);
      // A room off the page goes: the page's rows are the same, its total is not.
      await deleteDealRoom(team, second.id);
      const after = await read();
      expect(after[0]?.map((r) => r.name)).toEqual(['Final']);
      expect(after[1]).toEqual([]);
      expect(after[2]).toEqual([]);
      expect((await api.get(URLS[3] as string, key)).body.meta.pagination.total).toBe(1);
    } finally {
      await api.app.close();
      await fresh.close();
    }
  });
});

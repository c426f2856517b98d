import { describe, expect, it } from 'vitest';
import { updateDocument } from '../documents/commands.ts';
import { testApp } from '../testing/app.ts';
import { countedQueries } from '../testing/counted.ts';
import { viewedRoom } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { completeView, recordVisit } from '../tracking/commands.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';

describe.each(storeKinds())('analytics as a one-query read (%s store)', (kind) => {
  const s = useApi(kind); // now: 2026-05-20T12:00:00.000Z

  const room = () => viewedRoom(s.db, s.clock);

  it('answers a repeated read with one query, the same body and ETag; If-None-Match gets a 304', async () => {
    const { key, roomId } = await room();
    const { db, counter } = countedQueries(s.db);
    const api = await testApp(db, s.clock);
    try {
      const url = `/v1/deal-rooms/${roomId}/analytics?period=7d`;
      const before = counter.n;
      const first = await api.get(url, key);
      const firstQueries = counter.n - before;
      const second = await api.get(url, key);
      const secondQueries = counter.n - before - firstQueries;
      expect(first.status).toBe(200);
      expect(second.raw).toBe(first.raw);
      expect(second.headers.etag).toBe(first.headers.etag);
      expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
      // The key is known to the process by now: the one query is the room's figures and version.
      expect(firstQueries).toBeGreaterThan(1);
      expect(secondQueries).toBe(1);
      const again = await api.get(url, key, { 'if-none-match': String(first.headers.etag) });
      expect(again.status).toBe(304);
      expect(again.raw).toBe('');
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.headers['cache-control']).toBe('private, no-cache');
      // Another period is another body.
      expect((await api.get(`/v1/deal-rooms/${roomId}/analytics?period=30d`, key)).headers.etag).not.toBe(
        first.headers.etag,
      );
    } finally {
      await api.app.close();
    }
  });

  it('follows every write at once, whichever process wrote: views, visits, durations, a rename, a new day', async () => {
    const { teamId, key, roomId, docId, linkId } = await room();
    const other = await testApp(s.db, s.clock);
    try {
      const url = `/v1/deal-rooms/${roomId}/analytics?period=7d`;
      const read = async () => {
        const [a, b] = [await s.api.get(url, key), await other.get(url, key)];
        expect(b.raw).toBe(a.raw);
        expect(b.headers.etag).toBe(a.headers.etag);
        return { data: a.body.data, etag: String(a.headers.etag) };
      };
      const first = await read();
      expect(first.data.totalViews).toBe(1);
      const ctx = { db: s.db, clock: s.clock, appUrl: '' };

      await recordVisit(ctx, linkId, { viewer: { email: 'ann@buyer.example' } });
      const visited = await read();
      expect(visited.etag).not.toBe(first.etag);
      expect(visited.data.topLinks).toEqual([{ linkId, name: 'Main', clicks: 1 }]);

      const view = await createViewStartWriter()(ctx, linkId, {
        documentId: docId,
        viewer: { email: 'ann@buyer.example' },
      });
      const viewed = await read();
      expect(viewed.data.totalViews).toBe(2);
      expect(viewed.etag).not.toBe(visited.etag);

      await completeView(ctx, view.id, { durationSeconds: 90 });
      const completed = await read();
      expect(completed.data.avgViewDurationSeconds).toBe(60);

      await updateDocument({ ...ctx, teamId }, docId, { name: 'Deck (final)' });
      const renamed = await read();
      expect(renamed.data.topDocuments[0].name).toBe('Deck (final)');

      // Nothing written: the same body. A new UTC day: another window, another ETag.
      expect((await read()).etag).toBe(renamed.etag);
      s.clock.set('2026-05-21T00:00:01.000Z');
      const tomorrow = await read();
      expect(tomorrow.etag).not.toBe(renamed.etag);
      expect(tomorrow.data.viewsOverTime.at(-1)).toEqual({ date: '2026-05-21', views: 0 });
    } finally {
      s.clock.set('2026-05-20T12:00:00.000Z');
      await other.app.close();
    }
  });
});

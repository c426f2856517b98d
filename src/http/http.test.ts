import { describe, expect, it } from 'vitest';
import { revokeApiKey } from '../keys/commands.ts';
import { generateApiKey, isWellFormedApiKey } from '../keys/format.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { until } from '../testing/receiver.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';
import { KEY_CACHE_MS } from './auth.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const REQUIRED = { error: 'API key is required', code: 'unauthorized' };
const INVALID = { error: 'Invalid API key', code: 'unauthorized' };

describe.each(storeKinds())('HTTP contract (%s store)', (kind) => {
  const s = useApi(kind);

  describe('authentication', () => {
    it('answers 401 "API key is required" without a key, or with an empty one', async () => {
      const cases: Record<string, string>[] = [
        {},
        { authorization: '' },
        { authorization: 'Bearer ' },
        { 'x-api-key': '' },
        { 'x-api-key': '   ' },
      ];
      for (const headers of cases) {
        const res = await s.api.get('/v1/deal-rooms', undefined, headers);
        expect(res.status).toBe(401);
        expect(res.body).toEqual(REQUIRED);
        expect(res.headers['www-authenticate']).toBe('Bearer');
        expect(res.headers['content-type']).toBe(JSON_TYPE);
      }
    });

    it('answers 401 "Invalid API key" for a malformed, mistyped, unknown or revoked key', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      const revoked = await teamWithKey(s.db, s.clock);
      await revokeApiKey({ db: s.db, clock: s.clock, appUrl: '' }, revoked.keyId);
      const mistyped = `${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}`;
      const unknownButWellFormed = generateApiKey();
      expect(isWellFormedApiKey(unknownButWellFormed) && isWellFormedApiKey(key)).toBe(true);
      expect(isWellFormedApiKey(mistyped)).toBe(false);
      for (const bad of [
        'nope',
        'dr_live_short',
        mistyped,
        revoked.key,
        unknownButWellFormed,
        `Basic ${key}`,
      ]) {
        const headers = bad.startsWith('Basic') ? { authorization: bad } : { authorization: `Bearer ${bad}` };
        const res = await s.api.get('/v1/deal-rooms', undefined, headers);
        expect(res.status, bad).toBe(401);
        expect(res.body).toEqual(INVALID);
        expect(res.headers['www-authenticate']).toBe('Bearer');
      }
    });

    it('accepts the key as Bearer (any case) or X-API-Key, and prefers Authorization', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      expect((await s.api.get('/v1/deal-rooms', undefined, { authorization: `bearer ${key}` })).status).toBe(
        200,
      );
      expect((await s.api.get('/v1/deal-rooms', undefined, { authorization: `BEARER ${key}` })).status).toBe(
        200,
      );
      expect((await s.api.get('/v1/deal-rooms', undefined, { 'x-api-key': key })).status).toBe(200);
      const both = await s.api.get('/v1/deal-rooms', undefined, {
        authorization: `Bearer ${key}`,
        'x-api-key': 'junk',
      });
      expect(both.status).toBe(200);
      const wrongAuthorization = await s.api.get('/v1/deal-rooms', undefined, {
        authorization: 'Bearer junk',
        'x-api-key': key,
      });
      expect(wrongAuthorization.status).toBe(401);
      expect(wrongAuthorization.body).toEqual(INVALID);
    });

    it('fails a revoked key within one second (lookups are reused for a second, no longer)', async () => {
      const { key, keyId } = await teamWithKey(s.db, s.clock);
      expect((await s.api.get('/v1/deal-rooms', key)).status).toBe(200);
      await revokeApiKey({ db: s.db, clock: s.clock, appUrl: '' }, keyId);
      s.clock.advance(KEY_CACHE_MS - 1);
      expect((await s.api.get('/v1/deal-rooms', key)).status).toBe(200);
      s.clock.advance(1);
      expect((await s.api.get('/v1/deal-rooms', key)).body).toEqual(INVALID);
    });

    it('records lastUsedAt at most once a minute', async () => {
      const { key, keyId } = await teamWithKey(s.db, s.clock);
      const lastUsed = async () => {
        const rows = await s.db.query<{ last_used_at: Date | null }>(
          'SELECT last_used_at FROM api_keys WHERE id = $1',
          [keyId],
        );
        return rows[0]?.last_used_at?.toISOString() ?? null;
      };
      // Written off the request's path: wait for it rather than for a fixed time.
      const written = (at: string) => until(async () => (await lastUsed()) === at, `lastUsedAt ${at}`);
      expect(await lastUsed()).toBeNull();
      const first = s.clock.now().toISOString();
      await s.api.get('/v1/deal-rooms', key);
      await written(first);
      s.clock.advance(30_000);
      await s.api.get('/v1/deal-rooms', key);
      await new Promise((r) => setTimeout(r, 50)); // time for a write that should not come
      expect(await lastUsed()).toBe(first);
      s.clock.advance(31_000);
      await s.api.get('/v1/deal-rooms', key);
      await written(s.clock.now().toISOString());
      s.clock.set('2026-05-20T12:00:00.000Z');
    });
  });

  describe('routing and checks order', () => {
    it('answers an unknown path with 404 "Not found" before looking at the key', async () => {
      for (const url of ['/v1/nothing', '/v2/deal-rooms', '/', '/v1/deal-rooms/x/y/z']) {
        const res = await s.api.get(url);
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ error: 'Not found', code: 'not_found' });
        expect(res.headers['content-type']).toBe(JSON_TYPE);
      }
    });

    it('answers a room id that is too long or cannot be decoded like any other unknown room', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      for (const id of ['a'.repeat(150), 'b'.repeat(5000), '%ZZ', '%E0%A4%A']) {
        for (const suffix of ['', '/links', '/analytics']) {
          const res = await s.api.get(`/v1/deal-rooms/${id}${suffix}`, key);
          expect(res.status).toBe(404);
          expect(res.body).toEqual({ error: 'Deal room not found', code: 'not_found' });
          expect(res.headers['content-type']).toBe(JSON_TYPE);
          expect(res.headers['x-request-id']).toBeDefined();
        }
      }
      expect((await s.api.get('/v1/%ZZ', key)).body).toEqual({ error: 'Not found', code: 'not_found' });
    });

    it('answers another method on a known path with 405 and Allow, before authentication', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const url of ['/v1/deal-rooms', '/v1/deal-rooms/abc', '/v1/deal-rooms/abc/analytics']) {
          const res = await s.api.app.inject({ method, url });
          expect(res.statusCode).toBe(405);
          expect(res.headers.allow).toBe('GET, HEAD');
          expect(JSON.parse(res.body)).toEqual({
            error: 'Method not allowed',
            code: 'method_not_allowed',
          });
        }
      }
    });

    it('authenticates before validating the query, and validates before looking up the room', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      expect((await s.api.get('/v1/deal-rooms?page=0')).status).toBe(401);
      const res = await s.api.get('/v1/deal-rooms/not-a-room/viewers?page=0', key);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('validation_error');
    });
  });

  describe('query values', () => {
    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=', 'page'],
      ['page=1e1', 'page'],
      ['page=0x10', 'page'],
      ['page=%201', 'page'],
      ['page=1&page=2', 'page'],
      ['per_page=0', 'per_page'],
      ['per_page=-5', 'per_page'],
      ['per_page=2.5', 'per_page'],
      ['per_page=', 'per_page'],
      ['status=ACTIVE', 'status'],
      ['status=deleted', 'status'],
      ['status=', 'status'],
      ['status=active&status=archived', 'status'],
    ])('refuses %s with a 400 naming %s', async (query, param) => {
      const { key } = await teamWithKey(s.db, s.clock);
      const res = await s.api.get(`/v1/deal-rooms?${query}`, key);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['error', 'code']);
      expect(res.body.code).toBe('validation_error');
      expect(res.body.error.startsWith(`${param} `)).toBe(true);
    });

    it.each(['period=1d', 'period=ALL', 'period=', 'period=7d&period=30d'])(
      'refuses analytics %s',
      async (query) => {
        const { teamId, key } = await teamWithKey(s.db, s.clock);
        const room = make.room(teamId);
        await load(s.db, s.clock, { dealRooms: [room] });
        const res = await s.api.get(`/v1/deal-rooms/${room.id}/analytics?${query}`, key);
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('validation_error');
        expect(res.body.error.startsWith('period ')).toBe(true);
      },
    );

    it('clamps per_page above 100, accepts leading zeros, and ignores unknown parameters', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      const res = await s.api.get('/v1/deal-rooms?per_page=500&page=01&foo=bar', key);
      expect(res.status).toBe(200);
      expect(res.body.meta.pagination).toEqual({ page: 1, perPage: 100, total: 0, totalPages: 0 });
    });
  });

  describe('pagination', () => {
    it('walks every page without skips or repeats, and answers a page past the end with []', async () => {
      const { teamId, key } = await teamWithKey(s.db, s.clock);
      const rooms = Array.from({ length: 7 }, (_, i) =>
        make.room(teamId, { updatedAt: `2026-03-0${1 + (i % 3)}T00:00:00.000Z` }),
      );
      await load(s.db, s.clock, { dealRooms: rooms });
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++) {
        const res = await s.api.get(`/v1/deal-rooms?per_page=3&page=${page}`, key);
        expect(res.body.meta.pagination).toEqual({ page, perPage: 3, total: 7, totalPages: 3 });
        seen.push(...res.body.data.map((r: { id: string }) => r.id));
      }
      expect(new Set(seen).size).toBe(7);
      const past = await s.api.get('/v1/deal-rooms?per_page=3&page=4', key);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        data: [],
        meta: {
          apiVersion: '2026-04-01',
          pagination: { page: 4, perPage: 3, total: 7, totalPages: 3 },
        },
      });
      const far = await s.api.get('/v1/deal-rooms?page=999999999999999', key);
      expect(far.body.data).toEqual([]);
      expect(far.body.meta.pagination.page).toBe(999999999999999);
    });
  });

  describe('headers', () => {
    it('echoes a sane X-Request-Id and replaces anything else', async () => {
      const { key } = await teamWithKey(s.db, s.clock);
      expect(
        (await s.api.get('/v1/deal-rooms', key, { 'x-request-id': 'abc-123' })).headers['x-request-id'],
      ).toBe('abc-123');
      const odd = await s.api.get('/v1/deal-rooms', key, { 'x-request-id': 'bad id <script>' });
      expect(odd.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect((await s.api.get('/v1/unknown')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect((await s.api.get('/v1/deal-rooms')).headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('sends a weak ETag with caching headers and answers a matching If-None-Match with 304', async () => {
      const { teamId, key } = await teamWithKey(s.db, s.clock);
      await load(s.db, s.clock, { dealRooms: [make.room(teamId)] });
      const first = await s.api.get('/v1/deal-rooms', key);
      expect(first.headers['content-type']).toBe(JSON_TYPE);
      expect(first.headers.etag).toMatch(/^W\/"[^"]+"$/);
      expect(first.headers['cache-control']).toBe('private, no-cache');
      expect(first.headers.vary).toBe('Authorization, X-API-Key');
      const etag = String(first.headers.etag);
      for (const header of [etag, etag.slice(2), `"other", ${etag}`, '*']) {
        const again = await s.api.get('/v1/deal-rooms', key, { 'if-none-match': header });
        expect(again.status).toBe(304);
        expect(again.raw).toBe('');
        expect(again.headers.etag).toBe(etag);
      }
      expect((await s.api.get('/v1/deal-rooms', key, { 'if-none-match': 'W/"stale"' })).status).toBe(200);
      await load(s.db, s.clock, { dealRooms: [make.room(teamId, { name: 'Another' })] });
      expect((await s.api.get('/v1/deal-rooms', key, { 'if-none-match': etag })).status).toBe(200);
    });

    it('sends no ETag on errors', async () => {
      const res = await s.api.get('/v1/deal-rooms');
      expect(res.headers.etag).toBeUndefined();
    });

    it('answers HEAD wherever GET works, with the same headers and no body', async () => {
      const { teamId, key } = await teamWithKey(s.db, s.clock);
      const room = make.room(teamId);
      await load(s.db, s.clock, { dealRooms: [room] });
      for (const url of [
        '/v1/deal-rooms',
        `/v1/deal-rooms/${room.id}`,
        `/v1/deal-rooms/${room.id}/analytics`,
      ]) {
        const get = await s.api.get(url, key);
        const head = await s.api.app.inject({
          method: 'HEAD',
          url,
          headers: { authorization: `Bearer ${key}` },
        });
        expect(head.statusCode).toBe(200);
        expect(head.body).toBe('');
        expect(head.headers.etag).toBe(get.headers.etag);
        expect(head.headers['content-type']).toBe(JSON_TYPE);
      }
      const unauthenticated = await s.api.app.inject({ method: 'HEAD', url: '/v1/deal-rooms' });
      expect(unauthenticated.statusCode).toBe(401);
    });
  });

  describe('health', () => {
    it('reports liveness and readiness', async () => {
      expect(await s.api.get('/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await s.api.get('/readyz')).toMatchObject({
        status: 200,
        body: { status: 'ok', checks: { database: 'ok' } },
      });
    });
  });
});

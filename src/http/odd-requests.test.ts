import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { generateApiKey } from '../keys/format.ts';
import { testApp } from '../testing/app.ts';
import { teamWithKey } from '../testing/fixtures.ts';
import { openTestStore } from '../testing/stores.ts';

/** Requests as a hostile or careless client sends them, over a real socket. */
describe('odd HTTP gets the usual error shape', () => {
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  let db: Database;
  let api: Awaited<ReturnType<typeof testApp>>;
  let port = 0;
  let key = '';

  beforeAll(async () => {
    db = await openTestStore('embedded');
    api = await testApp(db, clock);
    port = Number(new URL(await api.app.listen({ port: 0, host: '127.0.0.1' })).port);
    key = (await teamWithKey(db, clock)).key;
  });
  afterAll(async () => {
    await api.app.close();
    await db.close();
  });

  /** Sends raw bytes and reads until the server closes or `Connection: close` ends the answer. */
  const raw = (request: string) =>
    new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      let text = '';
      socket.setTimeout(3000, () => socket.destroy(new Error(`no answer; got ${JSON.stringify(text)}`)));
      socket.on('data', (chunk) => {
        text += chunk;
        const end = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text.slice(0, end))?.[1];
        if (end !== -1 && length !== undefined && text.length - end - 4 >= Number(length)) socket.end();
      });
      socket.on('close', () => {
        const end = text.indexOf('\r\n\r\n');
        resolve({
          status: Number(text.slice(9, 12)),
          headers: text.slice(0, end),
          body: text.slice(end + 4),
        });
      });
      socket.on('error', reject);
    });

  const expectShape = (res: { headers: string; body: string }, code: string) => {
    expect(JSON.parse(res.body)).toMatchObject({ code });
    expect(Object.keys(JSON.parse(res.body))).toEqual(['error', 'code']);
    expect(res.headers).toMatch(/^x-request-id: \S+/im);
    expect(res.headers).toMatch(/^cache-control: no-store/im);
    expect(res.headers).toMatch(/^content-type: application\/json; charset=utf-8/im);
  };

  it('a request without Host', async () => {
    const res = await raw('GET /v1/deal-rooms HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(400);
    expectShape(res, 'validation_error');
  });

  it('an Expect header other than 100-continue', async () => {
    const res = await raw('GET /v1/deal-rooms HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
    expect(res.status).toBe(417);
    expectShape(res, 'validation_error');
  });

  it('an unparseable request and an oversized header', async () => {
    const bad = await raw('GET /v1/deal-rooms HTTP/1.1\r\nHost x\r\n\r\n');
    expect(bad.status).toBe(400);
    expectShape(bad, 'validation_error');
    const big = await raw(`GET /v1/deal-rooms HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).toBe(431);
    expectShape(big, 'validation_error');
  });

  it('any method other than GET and HEAD on a known path is a 405 with Allow', async () => {
    for (const method of [
      'TRACE',
      'PROPFIND',
      'LOCK',
      'MKCOL',
      'COPY',
      'MOVE',
      'SEARCH',
      'PURGE',
      'OPTIONS',
    ]) {
      for (const path of ['/v1/deal-rooms', '/v1/deal-rooms/abc/viewers']) {
        const res = await raw(`${method} ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers).toMatch(/^allow: GET, HEAD$/im);
        expectShape(res, 'method_not_allowed');
      }
    }
    const unknown = await raw('PROPFIND /v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(unknown.status).toBe(404);
  });

  it('two Authorization or two X-API-Key headers are an invalid key, even when one is valid', async () => {
    for (const header of ['Authorization: Bearer ', 'X-API-Key: ']) {
      const res = await raw(
        `GET /v1/deal-rooms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${header}${key}\r\n${header}dr_live_other\r\n\r\n`,
      );
      expect(res.status).toBe(401);
      expect(JSON.parse(res.body)).toEqual({ error: 'Invalid API key', code: 'unauthorized' });
    }
    const one = await raw(
      `GET /v1/deal-rooms HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-API-Key: ${key}\r\n\r\n`,
    );
    expect(one.status).toBe(200);
    expect(one.headers).toMatch(/^cache-control: private, no-cache/im);
  });

  it('every error answer says no-store', async () => {
    for (const url of ['/v1/deal-rooms', '/nowhere', '/v1/deal-rooms?page=0']) {
      const res = await api.app.inject({ url, headers: url.includes('page') ? { 'x-api-key': key } : {} });
      expect(res.statusCode).toBeGreaterThanOrEqual(400);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });
});

describe('refused requests stay quiet', () => {
  it('logs 401s at debug only and counts them; a repeated bad key costs no lookup', async () => {
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    const store = await openTestStore('embedded');
    const logged: string[] = [];
    let lookups = 0;
    const counting: Database = {
      ...store,
      query: (sql, params) => {
        if (sql.includes('FROM api_keys')) lookups++;
        return store.query(sql, params);
      },
    };
    const { app, scrape } = await testApp(counting, clock, {
      level: 'info',
      stream: { write: (l: string) => logged.push(l) },
    });
    try {
      // One character of a real key changed (to another one: a random key may start with Z).
      const real = (await teamWithKey(store, clock)).key;
      const fake = `dr_live_${real[8] === 'Z' ? 'Y' : 'Z'}${real.slice(9)}`;
      const wellFormedUnknown = generateApiKey();
      for (let i = 0; i < 5; i++) {
        expect((await app.inject({ url: '/v1/deal-rooms', headers: { 'x-api-key': fake } })).statusCode).toBe(
          401,
        );
        expect(
          (await app.inject({ url: '/v1/deal-rooms', headers: { 'x-api-key': wellFormedUnknown } }))
            .statusCode,
        ).toBe(401);
      }
      expect(logged).toEqual([]);
      expect(lookups).toBe(1); // the unknown well-formed key, once; the mistyped one needs none
      expect(await scrape()).toMatch(/^dealroom_unauthorized_total 10$/m);
    } finally {
      await app.close();
      await store.close();
    }
  });
});

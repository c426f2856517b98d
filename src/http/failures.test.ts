import { Writable } from 'node:stream';
import type { Response as LightMyRequestResponse } from 'light-my-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { openPostgres, type PostgresOptions } from '../db/postgres.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';

/**
 * A store whose queries start failing on demand, as a database that goes away does. The
 * error carries SQL and a secret-looking detail that must never reach a client.
 */
function breakable(db: Database) {
  let broken = false;
  const fail = async () => {
    throw new Error('connection terminated while running SELECT key_hash FROM api_keys WHERE secret = 42');
  };
  const wrapped: Database = {
    ...db,
    query: (sql, params) => (broken ? fail() : db.query(sql, params)),
    ping: () => (broken ? fail() : db.ping()),
  };
  return {
    db: wrapped,
    setBroken: (value: boolean) => {
      broken = value;
    },
  };
}

describe('unexpected failures', () => {
  let store: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const logged: string[] = [];

  beforeAll(async () => {
    store = await openTestStore('embedded');
  });
  afterAll(async () => {
    await store.close();
  });

  it('answers 500 with the generic body, logs the detail with the request id, and recovers', async () => {
    const { teamId, key } = await teamWithKey(store, clock);
    const room = make.room(teamId);
    await load(store, clock, { dealRooms: [room] });
    const { db, setBroken } = breakable(store);
    const app = await buildApp({
      db,
      clock,
      appUrl: 'https://x.test',
      logger: capturedLogger('error', logged),
    });

    setBroken(true);
    for (const url of [
      '/v1/deal-rooms',
      `/v1/deal-rooms/${room.id}`,
      `/v1/deal-rooms/${room.id}/analytics`,
    ]) {
      const res = await app.inject({
        url,
        headers: { authorization: `Bearer ${key}`, 'x-request-id': 'req-500' },
      });
      expect(res.statusCode).toBe(500);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(res.body)).toEqual({
        error: 'An unexpected error occurred',
        code: 'internal_error',
      });
      expect(res.body).not.toMatch(/SELECT|secret|stack/i);
    }
    expect(logged.some((line) => line.includes('req-500') && line.includes('connection terminated'))).toBe(
      true,
    );
    expect(logged.join('')).not.toContain(key);

    const ready = await app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      status: 'unavailable',
      checks: { database: 'unavailable' },
    });

    setBroken(false);
    expect((await app.inject({ url: '/v1/deal-rooms', headers: { 'x-api-key': key } })).statusCode).toBe(200);
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await app.close();
  });

  it('answers a request HTTP cannot parse with a 400 in the usual shape', async () => {
    const { connect } = await import('node:net');
    const app = await buildApp({ db: store, clock, appUrl: 'https://x.test', logger: { level: 'silent' } });
    const address = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    try {
      const reply = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(address.port), '127.0.0.1', () =>
          socket.write('GET /v1/deal-rooms HTTP/1.1\r\nHost x\r\n\r\n'),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(reply).toMatch(/^HTTP\/1\.1 400 /);
      expect(reply).toContain('Content-Type: application/json; charset=utf-8');
      expect(reply.slice(reply.indexOf('\r\n\r\n') + 4)).toBe(
        '{"error":"The request could not be understood","code":"validation_error"}',
      );
    } finally {
      await app.close();
    }
  });

  it('logs health probes at debug, and a failing readiness check once when it fails and once when it passes again', async () => {
    const { db, setBroken } = breakable(store);
    const chunks: string[] = [];
    const app = await buildApp({
      db,
      clock,
      appUrl: 'https://x.test',
      logger: capturedLogger('info', chunks),
    });
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    setBroken(true);
    for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503);
    setBroken(false);
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await app.close();
    const lines = chunks
      .flatMap((chunk) => chunk.split('\n').filter(Boolean))
      .map((line) => JSON.parse(line) as { msg: string; check?: string });
    // Nothing per probe at info: one line when the check starts failing, one when it passes.
    expect(lines.map((l) => [l.msg, l.check])).toEqual([
      ['readiness check failing', 'database'],
      ['readiness check passes again', 'database'],
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/"stack"/);
  });
});

describe.runIf(storeKinds().includes('postgres'))('saturation (postgres store)', () => {
  /** A database of its own with a team and its key, and the service's pool on it with these limits. */
  async function storeWithPool(pool: Omit<PostgresOptions, 'connectionString'>) {
    const base = await openTestStore('postgres');
    const clock = new ManualClock('2026-05-20T12:00:00.000Z');
    const team = await teamWithKey(base, clock);
    const db = await openPostgres({ connectionString: base.url as string, ...pool });
    return { base, db, clock, ...team };
  }

  it('answers 503 with Retry-After when no connection frees up in time, counts it, and serves again', async () => {
    // One connection, one request allowed to wait, for 100 ms.
    const { base, db, clock, key } = await storeWithPool({
      maxConnections: 1,
      maxWaiting: 1,
      maxWaitMs: 100,
    });
    const metrics = createMetrics();
    const app = await buildApp({ db, clock, appUrl: 'https://x.test', logger: false, metrics });
    try {
      const release = gate();
      const holding = db.transaction(() => release.opened);
      const answers = await Promise.all(
        [1, 2, 3].map(() => app.inject({ url: '/v1/deal-rooms', headers: { 'x-api-key': key } })),
      );
      for (const res of answers) {
        expectBusy(res);
      }
      release.open();
      await holding;
      expect((await app.inject({ url: '/v1/deal-rooms', headers: { 'x-api-key': key } })).statusCode).toBe(
        200,
      );
      const scraped = await metrics.registry.metrics();
      expect(scraped).toMatch(/^dealroom_db_pool_sheds_total\{pool="main"\} 3$/m);
      // Each refused request either found the queue full or waited its 100 ms there.
      const waits = Number(/^dealroom_db_pool_waits_total\{pool="main"\} (\d+)$/m.exec(scraped)?.[1]);
      expect(waits).toBeGreaterThanOrEqual(1);
      expect(waits).toBeLessThanOrEqual(3);
      expect(scraped).toMatch(/^dealroom_db_pool_waiting\{pool="main"\} 0$/m);
    } finally {
      await app.close();
      await db.close();
      await base.close();
    }
  });

  it('answers 503 with Retry-After when a lock is held past lock_timeout, not a 500', async () => {
    const { base, db, clock, teamId, key } = await storeWithPool({
      statementTimeoutMs: 3000,
      lockTimeoutMs: 200,
    });
    const room = make.room(teamId);
    await load(base, clock, { dealRooms: [room] });
    const app = await buildApp({ db, clock, appUrl: 'https://x.test', logger: false });
    const release = gate();
    // Another session holds the rooms' table, as a long migration or a stuck transaction would.
    let locked: () => void = () => undefined;
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    const holding = base.transaction(async (tx) => {
      await tx.query('LOCK TABLE deal_rooms IN ACCESS EXCLUSIVE MODE');
      locked();
      await release.opened;
    });
    try {
      await lockTaken;
      const res = await app.inject({ url: `/v1/deal-rooms/${room.id}`, headers: { 'x-api-key': key } });
      expectBusy(res);
      release.open();
      await holding;
      const after = await app.inject({ url: `/v1/deal-rooms/${room.id}`, headers: { 'x-api-key': key } });
      expect(after.statusCode).toBe(200);
    } finally {
      release.open();
      await holding.catch(() => undefined);
      await app.close();
      await db.close();
      await base.close();
    }
  });
});

function gate() {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

/** pino options writing every chunk it logs into `chunks`. */
function capturedLogger(level: string, chunks: string[]): never {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { level, stream } as never;
}

/** The answer a request gets when the store cannot take it in time: a 503 to retry in a second. */
function expectBusy(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('1');
  expect(res.json()).toEqual({ error: 'Service is busy, try again shortly', code: 'service_unavailable' });
}

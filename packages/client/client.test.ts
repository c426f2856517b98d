import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/core/clock.ts';
import type { Database } from '../../src/db/database.ts';
import { webhookHeaders } from '../../src/delivery/signature.ts';
import { MemoryRateLimiter } from '../../src/rate-limit/memory.ts';
import { load, make, teamWithKey } from '../../src/testing/fixtures.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { typeErrors } from '../../src/testing/typecheck.ts';
import { generateWebhookSecret } from '../../src/webhooks/secrets.ts';
import {
  DealRoomApiError,
  DealRoomClient,
  type Viewer,
  verifyWebhook,
  WebhookVerificationError,
} from './index.js';

describe('client types', () => {
  // expectTypeOf asserts nothing when the suite runs: the type checker reads these lines here.
  const check = (pairs: readonly (readonly [string, string, string])[]) =>
    [
      "import { expectTypeOf } from 'vitest';",
      ...pairs.map(
        ([client, server, from], i) =>
          `import type { ${client} as Client${i} } from './index.js';\n` +
          `import type { ${server} as Server${i} } from '../../src/${from}';\n` +
          `expectTypeOf<Client${i}>().toEqualTypeOf<Server${i}>();`,
      ),
    ].join('\n');
  const PAIRS = [
    ['DealRoom', 'DealRoom', 'deal-rooms/schemas.ts'],
    ['DealRoomDetail', 'DealRoomDetail', 'deal-rooms/schemas.ts'],
    ['Document', 'Document', 'documents/schemas.ts'],
    ['Link', 'Link', 'links/schemas.ts'],
    ['Viewer', 'Viewer', 'viewers/schemas.ts'],
    ['Analytics', 'Analytics', 'analytics/schemas.ts'],
  ] as const;

  it('are the server schemas, field for field', () => {
    expect(typeErrors(check(PAIRS), 'packages/client/types.check.ts')).toEqual([]);
    // The check can fail: a Link is not a DealRoom.
    const wrong = check([['DealRoom', 'Link', 'links/schemas.ts']]);
    expect(typeErrors(wrong, 'packages/client/types.check.ts')).not.toEqual([]);
  });
});

describe('DealRoomClient against the real server on loopback', () => {
  let db: Database;
  let baseUrl: string;
  let broken = false;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  let app: Awaited<ReturnType<typeof buildApp>>;
  let key: string;
  let roomId: string;

  beforeAll(async () => {
    const store = await openTestStore('embedded');
    db = store;
    const flaky: Database = {
      ...store,
      query: (sql, params) =>
        broken ? Promise.reject(new Error('database went away')) : store.query(sql, params),
    };
    app = await buildApp({
      db: flaky,
      clock,
      appUrl: 'https://x.test',
      logger: { level: 'silent' },
      rateLimiter: new MemoryRateLimiter({ perKey: 40, perTeam: 1000, windowMs: 3_600_000 }),
    });
    baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });

    const team = await teamWithKey(db, clock);
    key = team.key;
    const room = make.room(team.teamId, { name: 'Client room' });
    roomId = room.id as string;
    const doc = make.document(roomId);
    const link = make.link(roomId);
    await load(db, clock, {
      dealRooms: [room],
      documents: [doc],
      links: [link],
      views: Array.from({ length: 5 }, (_, i) =>
        make.view(
          link.id as string,
          doc.id as string,
          { email: `v${i}@x.co` },
          `2026-05-1${i}T00:00:00Z`,
          10 * i,
        ),
      ),
    });
  });
  afterAll(async () => {
    await app.close();
    await db.close();
  });

  const client = (options: Partial<ConstructorParameters<typeof DealRoomClient>[0]> = {}) =>
    new DealRoomClient({ apiKey: key, baseUrl, ...options });

  it('walks every page with the async iterator', async () => {
    const seen: Viewer[] = [];
    for await (const viewer of client().viewers.list(roomId, { perPage: 2 })) seen.push(viewer);
    expect(seen.map((v) => v.email)).toEqual(['v4@x.co', 'v3@x.co', 'v2@x.co', 'v1@x.co', 'v0@x.co']);
    const page = await client().viewers.list(roomId, { perPage: 2 }).page(3);
    expect(page.pagination).toEqual({ page: 3, perPage: 2, total: 5, totalPages: 3 });
    expect(await client().dealRooms.list({ status: 'active' }).toArray()).toHaveLength(1);
  });

  it('returns typed single resources', async () => {
    const room = await client().dealRooms.get(roomId);
    expect(room).toMatchObject({
      id: roomId,
      name: 'Client room',
      totalViews: 5,
      uniqueViewers: 5,
      avgViewDurationSeconds: 20,
    });
    const analytics = await client().analytics.get(roomId, { period: '7d' });
    expect(analytics.period).toBe('7d');
    expect(analytics.viewsOverTime).toHaveLength(7);
  });

  it('throws typed errors with code, status and request id', async () => {
    const error = await client()
      .dealRooms.get('nope')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DealRoomApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', message: 'Deal room not found' });
    expect((error as DealRoomApiError).requestId).toMatch(/^[0-9a-f-]{36}$/);
    await expect(client({ apiKey: 'dr_live_nope' }).dealRooms.get(roomId)).rejects.toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
  });

  it('retries a 429 after the Retry-After it was given', async () => {
    const { key: fresh } = await teamWithKey(db, clock);
    const waits: number[] = [];
    const c = client({
      apiKey: fresh,
      maxRetryDelayMs: 3_600_000,
      sleep: async (ms) => {
        waits.push(ms);
        clock.advance(ms);
      },
    });
    for (let i = 0; i < 40; i++) await c.dealRooms.list().page(1);
    clock.advance(1000);
    const page = await c.dealRooms.list().page(1); // the 41st: refused, waited for, retried
    expect(page.data).toEqual([]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBe((3600 - 1) * 1000);
  });

  it('does not wait past maxRetryDelayMs: the 429 is thrown with its Retry-After', async () => {
    const { key: fresh } = await teamWithKey(db, clock);
    const c = client({
      apiKey: fresh,
      maxRetryDelayMs: 1000,
      sleep: async () => {
        throw new Error('must not wait');
      },
    });
    for (let i = 0; i < 40; i++) await c.dealRooms.list().page(1);
    await expect(c.dealRooms.list().page(1)).rejects.toMatchObject({
      status: 429,
      code: 'rate_limit',
      retryAfterSeconds: 3600,
    });
  });

  it('retries a 5xx with backoff and bounded attempts', async () => {
    const waits: number[] = [];
    broken = true;
    const recovering = client({
      sleep: async (ms) => {
        waits.push(ms);
        broken = waits.length < 2;
      },
    });
    expect((await recovering.dealRooms.get(roomId)).id).toBe(roomId);
    expect(waits).toHaveLength(2);
    broken = true;
    const giving = client({ maxRetries: 2, sleep: async () => {} });
    await expect(giving.dealRooms.get(roomId)).rejects.toMatchObject({ status: 500, code: 'internal_error' });
    broken = false;
  });

  it('reports a network failure after its retries', async () => {
    const c = new DealRoomClient({
      apiKey: key,
      baseUrl: 'http://127.0.0.1:9',
      maxRetries: 1,
      sleep: async () => {},
    });
    await expect(c.dealRooms.get(roomId)).rejects.toMatchObject({ status: 0, code: 'network_error' });
  });
});

describe('verifyWebhook', () => {
  const secret = generateWebhookSecret();
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'view.started',
    createdAt: '2026-05-20T12:00:00.000Z',
    apiVersion: '2026-04-01',
    teamId: 't',
    data: { id: 'v' },
  });
  const at = 1_779_278_400; // 2026-05-20T12:00:00Z
  const now = new Date(at * 1000);

  it('accepts what the service signs and returns the payload', async () => {
    const headers = webhookHeaders([secret], 'evt_1', at, body);
    const event = await verifyWebhook(body, headers, secret, { now });
    expect(event).toMatchObject({ id: 'evt_1', type: 'view.started' });
    await expect(
      verifyWebhook(new TextEncoder().encode(body), new Headers(headers), secret, { now }),
    ).resolves.toMatchObject({ id: 'evt_1' });
  });

  it('accepts either secret during a rotation', async () => {
    const next = generateWebhookSecret();
    const headers = webhookHeaders([next, secret], 'evt_1', at, body);
    await expect(verifyWebhook(body, headers, secret, { now })).resolves.toBeTruthy();
    await expect(
      verifyWebhook(body, webhookHeaders([next], 'evt_1', at, body), [secret, next], { now }),
    ).resolves.toBeTruthy();
  });

  it('refuses a changed body, another id, a wrong secret, a stale timestamp or missing headers', async () => {
    const headers = webhookHeaders([secret], 'evt_1', at, body);
    const refuse = (promise: Promise<unknown>) =>
      expect(promise).rejects.toBeInstanceOf(WebhookVerificationError);
    await refuse(verifyWebhook(body.replace('view', 'download'), headers, secret, { now }));
    await refuse(verifyWebhook(body, { ...headers, 'webhook-id': 'evt_2' }, secret, { now }));
    await refuse(verifyWebhook(body, headers, generateWebhookSecret(), { now }));
    await refuse(verifyWebhook(body, headers, secret, { now: new Date((at + 301) * 1000) }));
    await refuse(verifyWebhook(body, { 'webhook-id': 'evt_1' }, secret, { now }));
  });
});

import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/index.js';
import { systemClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { managementClient, recordedEvents } from '../testing/management.ts';
import { unusedPort } from '../testing/ports.ts';
import { type Receiver, startReceiver, until } from '../testing/receiver.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { writeContexts } from '../write/context.ts';
import { IDEMPOTENCY_TTL_MS } from '../write/transaction.ts';
import { trackWebhookQueue } from './metrics.ts';
import { ADDRESS_NOT_ALLOWED, causeOf, timedOut, WebhookSender } from './sender.ts';
import { ATTEMPTS_KEPT_MS, DeliveryWorker, type WorkerOptions } from './worker.ts';

const BASE_MS = 40;
const quiet = { info() {}, warn() {}, error() {} };

describe.each(storeKinds())('webhook delivery (%s store)', (kind) => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let receiver: Receiver;
  let worker: DeliveryWorker | undefined;
  const metrics = createMetrics();

  beforeAll(async () => {
    db = await openTestStore(kind);
    admin = await managementClient(db, systemClock, metrics, { allowPrivateUrls: true });
    receiver = await startReceiver();
    trackWebhookQueue(metrics, db, systemClock);
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  afterAll(async () => {
    await admin?.app.close();
    await receiver?.close();
    await db?.close();
  });

  function startWorker(options: Partial<WorkerOptions> = {}) {
    const started: DeliveryWorker = new DeliveryWorker({
      db,
      clock: systemClock,
      logger: quiet,
      metrics,
      appUrl: 'http://localhost:3000',
      retryBaseMs: BASE_MS,
      allowPrivateUrls: true,
      userAgent: 'DealRoomAnalytics-Webhooks/1.0',
      // The receiver answers in this same process, which on two busy cores may not run for a
      // while: at 400 ms a delivery once timed out with its answer on the way, and was sent
      // again. Longer, each test that leaves a delivery to an unreachable host behind waits
      // longer for its worker to stop. Tests of the timeout set their own.
      timeoutMs: 1500,
      pollMs: 20,
      expiryEveryMs: 50,
      random: () => 0.5,
      // The worker's own writes (link.expired) are counted and wake it, as in a process.
      writeContext: writeContexts({
        db,
        clock: systemClock,
        appUrl: 'http://localhost:3000',
        metrics,
        onEvents: () => started.wake(),
      }),
      ...options,
    });
    worker = started;
    started.start();
    return started;
  }

  let paths = 0;
  /** A team with an endpoint at a path of its own on the receiver. */
  async function team(events?: string[], options: { url?: string } = {}) {
    const path = `/hooks/${++paths}`;
    const teamId = (await admin.post('/teams', { name: `Team ${paths}` })).body.data.id as string;
    const created = await admin.post(`/teams/${teamId}/webhook-endpoints`, {
      url: options.url ?? receiver.url(path),
      ...(events ? { events } : {}),
    });
    expect(created.status).toBe(201);
    return {
      teamId,
      path,
      endpointId: created.body.data.id as string,
      secret: created.body.data.secret as string,
    };
  }
  const room = async (teamId: string, name = 'Falcon') =>
    (await admin.post(`/teams/${teamId}/deal-rooms`, { name })).body.data.id as string;
  const attempts = async (endpointId: string) =>
    (await admin.get(`/webhook-endpoints/${endpointId}/attempts`)).body.data as {
      eventId: string;
      status: number | null;
      durationMs: number;
      error: string | null;
      attemptedAt: string;
    }[];
  const deadLetters = async (teamId: string) => (await admin.get(`/teams/${teamId}/dead-letters`)).body.data;

  it('POSTs each event signed per Standard Webhooks, verifiable by the client package and by standardwebhooks', async () => {
    const t = await team();
    startWorker();
    const roomId = await room(t.teamId);
    await until(() => receiver.to(t.path).length === 1, 'the delivery');
    const [got] = receiver.to(t.path);
    const [event] = (await recordedEvents(db)).filter((e) => e.teamId === t.teamId);
    if (!got || !event) throw new Error('no delivery');
    expect(got.headers['webhook-id']).toBe(event.id);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toMatch(/^DealRoomAnalytics-Webhooks\//);
    expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(JSON.parse(got.body)).toEqual(event);
    expect(Object.keys(JSON.parse(got.body))).toEqual([
      'id',
      'type',
      'createdAt',
      'apiVersion',
      'teamId',
      'data',
    ]);

    const verified = await verifyWebhook(got.body, got.headers as Record<string, string>, t.secret);
    expect(verified).toMatchObject({ type: 'deal_room.created', data: { id: roomId } });
    expect(new Webhook(t.secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      id: event.id,
    });
    await expect(
      verifyWebhook(got.body.replace('Falcon', 'Eagle'), got.headers as never, t.secret),
    ).rejects.toThrow();

    await until(async () => (await attempts(t.endpointId)).length === 1, 'the attempt recorded');
    const [attempt] = await attempts(t.endpointId);
    expect(attempt).toMatchObject({ eventId: event.id, type: 'deal_room.created', status: 200, error: null });
    expect(await deadLetters(t.teamId)).toEqual([]);
  });

  it('retries 5xx, 408 and network failures with backoff ×4, then succeeds with the same webhook-id', async () => {
    const t = await team();
    receiver.on(t.path, (_request, seen) =>
      seen === 1
        ? { status: 503 }
        : seen === 2
          ? { drop: true }
          : seen === 3
            ? { status: 408 }
            : { status: 204 },
    );
    startWorker();
    await room(t.teamId);
    await until(() => receiver.to(t.path).length === 4, 'four attempts');
    const got = receiver.to(t.path);
    expect(new Set(got.map((r) => r.headers['webhook-id'])).size).toBe(1);
    const gaps = got.slice(1).map((r, i) => r.at - (got[i] as { at: number }).at);
    // random() = 0.5: no jitter, so the waits are the schedule's: base, 4×base, 16×base.
    expect(gaps[0]).toBeGreaterThanOrEqual(BASE_MS - 5);
    expect(gaps[1]).toBeGreaterThanOrEqual(4 * BASE_MS - 5);
    expect(gaps[2]).toBeGreaterThanOrEqual(16 * BASE_MS - 5);
    await until(async () => (await attempts(t.endpointId)).length === 4, 'four attempts recorded');
    const recorded = await attempts(t.endpointId);
    expect(recorded.map((a) => a.status)).toEqual([204, 408, null, 503]);
    expect(recorded[2]?.error).toBeTruthy();
    expect(await deadLetters(t.teamId)).toEqual([]);
  });

  it('honours a longer Retry-After', async () => {
    const t = await team();
    receiver.on(t.path, (_request, seen) =>
      seen === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    startWorker();
    await room(t.teamId);
    await until(() => receiver.to(t.path).length === 2, 'the retry', 5000);
    const [first, second] = receiver.to(t.path);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('sends a 4xx or a redirect to the dead-letter queue at once, and a replay delivers it with the same id', async () => {
    const t = await team();
    let gone = true;
    receiver.on(t.path, () => (gone ? { status: 410 } : { status: 200 }));
    receiver.on(`${t.path}/moved`, () => ({
      status: 302,
      headers: { location: receiver.url('/elsewhere') },
    }));
    startWorker();
    await room(t.teamId);
    await until(async () => (await deadLetters(t.teamId)).length === 1, 'the dead letter');
    const [letter] = await deadLetters(t.teamId);
    expect(letter).toMatchObject({
      endpointId: t.endpointId,
      attempts: 1,
      lastStatus: 410,
      type: 'deal_room.created',
    });
    expect(receiver.to(t.path)).toHaveLength(1);

    gone = false;
    const replayed = await admin.post(`/dead-letters/${letter.id}/replay`);
    expect(replayed.status).toBe(200);
    await until(() => receiver.to(t.path).length === 2, 'the replay');
    expect(receiver.to(t.path)[1]?.headers['webhook-id']).toBe(letter.eventId);
    expect((await admin.post(`/dead-letters/${letter.id}/replay`)).status).toBe(409);
    expect(await deadLetters(t.teamId)).toEqual([]);

    // A redirect is not followed: the receiver's other path never hears of it.
    const moved = await admin.patch(`/webhook-endpoints/${t.endpointId}`, {
      url: receiver.url(`${t.path}/moved`),
    });
    expect(moved.status).toBe(200);
    await room(t.teamId, 'Moved');
    await until(async () => (await deadLetters(t.teamId)).length === 1, 'the redirect dead-lettered');
    expect((await deadLetters(t.teamId))[0]).toMatchObject({ lastStatus: 302, attempts: 1 });
    expect(receiver.to('/elsewhere')).toHaveLength(0);
  });

  it('dead-letters after the 5th failure; replay all of an endpoint queues every one again', async () => {
    const t = await team();
    let down = true;
    receiver.on(t.path, () => (down ? { status: 500 } : { status: 200 }));
    startWorker({ retryBaseMs: 5 });
    await room(t.teamId, 'One');
    await room(t.teamId, 'Two');
    await until(async () => (await deadLetters(t.teamId)).length === 2, 'two dead letters');
    expect(receiver.to(t.path)).toHaveLength(10);
    for (const letter of await deadLetters(t.teamId)) {
      expect(letter).toMatchObject({ attempts: 5, lastStatus: 500, lastError: 'HTTP 500' });
    }
    down = false;
    const replayed = await admin.post(`/webhook-endpoints/${t.endpointId}/dead-letters/replay`);
    expect(replayed.body).toEqual({ data: { replayed: 2 } });
    await until(() => receiver.to(t.path).length === 12, 'both replayed');
    expect(await deadLetters(t.teamId)).toEqual([]);
    expect((await admin.post(`/webhook-endpoints/${t.endpointId}/dead-letters/replay`)).body).toEqual({
      data: { replayed: 0 },
    });
  });

  it('counts a receiver that does not answer in time as a failed attempt without status', async () => {
    const t = await team();
    receiver.on(t.path, (_request, seen) => (seen === 1 ? { status: 200, delayMs: 1000 } : { status: 200 }));
    startWorker({ timeoutMs: 200 });
    await room(t.teamId);
    await until(async () => (await attempts(t.endpointId)).length === 2, 'the timeout and the retry');
    const [second, first] = await attempts(t.endpointId);
    // No answer: the attempt names its cause, and its time is not the team's to measure.
    expect(first).toMatchObject({ status: null, error: timedOut(200), durationMs: 0 });
    expect(second).toMatchObject({ status: 200 });
  });

  it('keeps a slow endpoint from holding up the others on the same host', async () => {
    const slow = await team();
    const fast = await team();
    receiver.on(slow.path, () => ({ hang: true }));
    for (let i = 0; i < 12; i++) await room(slow.teamId, `Slow ${i}`);
    startWorker({ timeoutMs: 3000 });
    await until(() => receiver.to(slow.path).length >= 8, 'the slow endpoint busy');
    for (let i = 0; i < 5; i++) await room(fast.teamId, `Fast ${i}`);
    await until(() => receiver.to(fast.path).length === 5, 'the fast deliveries');
    // Delivered while all 8 of the slow endpoint's slots still wait for an answer: none of
    // its attempts has ended, and the other 4 deliveries wait for a slot.
    expect(await attempts(slow.endpointId)).toEqual([]);
    expect(receiver.to(slow.path)).toHaveLength(8);
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const t = await team();
    const rotated = await admin.post(`/webhook-endpoints/${t.endpointId}/rotate-secret`);
    const fresh = rotated.body.data.secret as string;
    startWorker();
    await room(t.teamId);
    await until(() => receiver.to(t.path).length === 1, 'the delivery');
    const [got] = receiver.to(t.path);
    if (!got) throw new Error('no delivery');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [fresh, t.secret]) {
      await expect(verifyWebhook(got.body, got.headers as never, secret)).resolves.toBeTruthy();
      expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toBeTruthy();
    }
  });

  it('keeps each earlier secret signing for its own 24 hours through a second rotation, until retired', async () => {
    const t = await team();
    const second = (await admin.post(`/webhook-endpoints/${t.endpointId}/rotate-secret`)).body.data
      .secret as string;
    const third = (await admin.post(`/webhook-endpoints/${t.endpointId}/rotate-secret`)).body.data
      .secret as string;
    startWorker();
    await room(t.teamId, 'Signed thrice');
    await until(() => receiver.to(t.path).length === 1, 'the delivery');
    const [got] = receiver.to(t.path);
    if (!got) throw new Error('no delivery');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(3);
    for (const secret of [third, second, t.secret]) {
      await expect(verifyWebhook(got.body, got.headers as never, secret)).resolves.toBeTruthy();
    }
    const retired = await admin.post(`/webhook-endpoints/${t.endpointId}/retire-previous-secrets`);
    expect(retired.status).toBe(200);
    expect(retired.body.data).not.toHaveProperty('secret');
    await room(t.teamId, 'Signed once');
    await until(() => receiver.to(t.path).length === 2, 'the second delivery');
    const last = receiver.to(t.path)[1];
    if (!last) throw new Error('no second delivery');
    expect(String(last.headers['webhook-signature']).split(' ')).toHaveLength(1);
    await expect(verifyWebhook(last.body, last.headers as never, third)).resolves.toBeTruthy();
    await expect(verifyWebhook(last.body, last.headers as never, second)).rejects.toThrow();
  });

  it('follows each endpoint’s filter; a disabled endpoint receives nothing; a removed one’s deliveries are dropped', async () => {
    const t = await team(['document.created']);
    const off = await team();
    expect((await admin.patch(`/webhook-endpoints/${off.endpointId}`, { enabled: false })).status).toBe(200);
    const roomId = await room(t.teamId);
    await admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Deck.pdf' });
    await room(off.teamId);
    // Queued while no worker runs, then the endpoint is removed: nothing is left to send.
    const removed = await team();
    await room(removed.teamId);
    expect((await admin.del(`/webhook-endpoints/${removed.endpointId}`)).status).toBe(204);
    const [left] = await db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1',
      [removed.endpointId],
    );
    expect(left?.n).toBe(0);

    startWorker();
    await until(() => receiver.to(t.path).length === 1, 'the filtered delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.to(t.path).map((r) => JSON.parse(r.body).type)).toEqual(['document.created']);
    expect(receiver.to(off.path)).toHaveLength(0);
    expect(receiver.to(removed.path)).toHaveLength(0);
  });

  it('checks the address actually connected to: a name that now resolves to loopback is refused', async () => {
    const t = await team(undefined, { url: `https://hooks.example.com:${receiver.port}/hooks/rebound` });
    startWorker({
      allowPrivateUrls: false,
      // The edge of the world: DNS, which answered a public address at registration.
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    await room(t.teamId);
    await until(async () => (await attempts(t.endpointId)).length >= 1, 'the refused attempt');
    const [attempt] = await attempts(t.endpointId);
    expect(attempt?.status).toBeNull();
    // The team is told the address is not allowed, not which address the name resolved to.
    expect(attempt?.error).toBe(ADDRESS_NOT_ALLOWED);
    expect(receiver.to('/hooks/rebound')).toHaveLength(0);
  });

  it('sends nothing over http:// once WEBHOOK_ALLOW_PRIVATE_URLS is off, to an endpoint stored while it was on', async () => {
    const t = await team(undefined, { url: receiver.url('/hooks/plain-http') });
    startWorker({ allowPrivateUrls: false });
    await room(t.teamId);
    await until(async () => (await attempts(t.endpointId)).length >= 1, 'the refused attempt');
    const [attempt] = await attempts(t.endpointId);
    expect(attempt).toMatchObject({
      status: null,
      error: 'the endpoint URL is not https://, and this service reaches only https:// endpoints',
    });
    expect(receiver.to('/hooks/plain-http')).toHaveLength(0);
  });

  it('raises link.expired once when a link expires, and again when a later expiry passes', async () => {
    const t = await team(['link.expired']);
    const roomId = await room(t.teamId);
    const soon = () => new Date(Date.now() + 300).toISOString();
    const linkId = (await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Investors', expiresAt: soon() }))
      .body.data.id as string;
    // Created with an expiry already past: it never was live, so it never expires.
    await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Old', expiresAt: '2020-01-01T00:00:00.000Z' });
    startWorker();
    await until(() => receiver.to(t.path).length === 1, 'link.expired');
    const first = JSON.parse(receiver.to(t.path)[0]?.body ?? '{}');
    expect(first).toMatchObject({ type: 'link.expired', data: { id: linkId, isActive: false } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.to(t.path)).toHaveLength(1);

    expect((await admin.patch(`/links/${linkId}`, { expiresAt: soon() })).status).toBe(200);
    await until(() => receiver.to(t.path).length === 2, 'the second link.expired');
    expect(JSON.parse(receiver.to(t.path)[1]?.body ?? '{}')).toMatchObject({
      type: 'link.expired',
      data: { id: linkId },
    });
  });

  it('prunes events older than 30 days once delivered, keeping those still pending or dead', async () => {
    const t = await team();
    const old = new Date(Date.now() - ATTEMPTS_KEPT_MS - 60_000);
    await room(t.teamId, 'Delivered long ago');
    startWorker();
    await until(async () => (await attempts(t.endpointId)).length === 1, 'a delivery');
    await worker?.stop();
    worker = undefined;
    await room(t.teamId, 'Still pending');
    const events = await db.query<{ id: string; state: string }>(
      `SELECT ev.id, d.state FROM webhook_events ev JOIN webhook_deliveries d ON d.event_id = ev.id
        WHERE d.endpoint_id = $1 ORDER BY ev.id`,
      [t.endpointId],
    );
    expect(events.map((e) => e.state)).toEqual(['succeeded', 'pending']);
    await db.query('UPDATE webhook_events SET created_at = $2 WHERE id = ANY ($1::uuid[])', [
      events.map((e) => e.id),
      old,
    ]);
    // The pending one goes out now, recently; the old delivered one is pruned with its attempt.
    startWorker({ retryBaseMs: 60_000 });
    await until(
      async () =>
        (await db.query('SELECT 1 FROM webhook_events WHERE id = $1', [events[0]?.id])).length === 0,
      'the pruning',
    );
    const left = await db.query<{ id: string }>('SELECT id FROM webhook_events WHERE id = ANY ($1::uuid[])', [
      events.map((e) => e.id),
    ]);
    expect(left.map((e) => e.id)).toEqual([events[1]?.id]);
  });

  it("removes a deleted room's earlier events once nothing is pending for them, after delivering its deal_room.deleted", async () => {
    const t = await team();
    const kept = await room(t.teamId, 'Kept');
    const gone = await room(t.teamId, 'Gone');
    const typesOf = async (roomId: string) =>
      (await recordedEvents(db))
        .filter(
          (e) =>
            (e.type.startsWith('deal_room.')
              ? e.data.id
              : (roomOf.get(e.data.id as string) ?? e.data.dealRoomId)) === roomId,
        )
        .map((e) => e.type)
        .sort();
    const roomOf = new Map<string, string>();
    const documentId = (
      await admin.post(`/deal-rooms/${gone}/documents`, { name: 'Deck.pdf', status: 'published' })
    ).body.data.id as string;
    const linkId = (await admin.post(`/deal-rooms/${gone}/links`, { name: 'Investors' })).body.data
      .id as string;
    roomOf.set(documentId, gone).set(linkId, gone);
    const view = await admin.post(`/links/${linkId}/views`, {
      documentId,
      viewer: { email: 'ana@example.com' },
    });
    expect(view.status).toBe(201);
    const before = [
      'deal_room.created',
      'document.created',
      'link.created',
      'view.started',
      'viewer.created',
    ];
    expect(await typesOf(gone)).toEqual(before);
    // Nothing delivered yet: the deletion leaves its earlier events for the worker to deliver first.
    expect((await admin.del(`/deal-rooms/${gone}`)).status).toBe(204);
    expect(await typesOf(gone)).toEqual([...before, 'deal_room.deleted'].sort());
    startWorker();
    await until(async () => (await typesOf(gone)).length === 1, 'the removal');
    expect(await typesOf(gone)).toEqual(['deal_room.deleted']);
    // Every one of them reached the endpoint before it went, the viewer's email included.
    const delivered = receiver
      .to(t.path)
      .map((r) => JSON.parse(r.body) as { type: string; data: { id: string } });
    expect(
      delivered
        .filter((e) => e.data.id !== kept)
        .map((e) => e.type)
        .sort(),
    ).toEqual([...before, 'deal_room.deleted'].sort());
    expect(delivered.some((e) => JSON.stringify(e).includes('ana@example.com'))).toBe(true);
    // Another room's events stay.
    expect(await typesOf(kept)).toEqual(['deal_room.created']);
  });

  it('prunes attempts older than 30 days and Idempotency-Key answers older than 24 hours', async () => {
    const t = await team();
    await room(t.teamId);
    startWorker();
    await until(async () => (await attempts(t.endpointId)).length === 1, 'an attempt');
    await worker?.stop();
    worker = undefined;
    const now = Date.now();
    await db.query('UPDATE webhook_attempts SET attempted_at = $2 WHERE endpoint_id = $1', [
      t.endpointId,
      new Date(now - ATTEMPTS_KEPT_MS - 60_000),
    ]);
    await db.query(
      `INSERT INTO idempotency_keys (key, fingerprint, result, created_at)
       VALUES ('old-key', 'f', 'null', $1), ('new-key', 'f', 'null', $2)`,
      [new Date(now - IDEMPOTENCY_TTL_MS - 60_000), new Date(now - 60_000)],
    );
    startWorker();
    await until(async () => (await attempts(t.endpointId)).length === 0, 'the old attempt pruned');
    const keys = await db.query<{ key: string }>(
      "SELECT key FROM idempotency_keys WHERE key IN ('old-key', 'new-key')",
    );
    expect(keys.map((k) => k.key)).toEqual(['new-key']);
  });

  it('reports the queue on /metrics', async () => {
    const t = await team();
    receiver.on(t.path, () => ({ status: 400 }));
    await room(t.teamId);
    // The queue as the database holds it, read while no worker changes it: earlier tests
    // leave deliveries pending (held for a disabled endpoint, or waiting for a retry).
    const pending = async () =>
      (
        await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'pending'",
        )
      )[0]?.n;
    const pendingBefore = await pending();
    const before = await metrics.registry.metrics();
    expect(before).toContain(`dealroom_webhook_queue_depth ${pendingBefore}`);
    expect(before).toMatch(/dealroom_webhook_oldest_pending_seconds \d/);
    startWorker();
    await until(async () => (await deadLetters(t.teamId)).length === 1, 'the dead letter');
    await worker?.stop();
    // A scrape reads the queue anew once the last reading is 100 ms old.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const pendingAfter = await pending();
    const after = await metrics.registry.metrics();
    expect(after).toContain(`dealroom_webhook_queue_depth ${pendingAfter}`);
    expect(pendingAfter).toBeLessThan(pendingBefore ?? 0);
    expect(after).toMatch(/dealroom_webhook_dead_letters [1-9]/);
    expect(after).toMatch(/dealroom_webhook_attempts_total\{result="failed"\} [1-9]/);
    expect(after).toMatch(/dealroom_webhook_dead_letters_total [1-9]/);
  });

  it('names the cause of an attempt that got no answer: a refused connection, a name that does not resolve', async () => {
    const sender = new WebhookSender({ userAgent: 'test', allowPrivate: true, timeoutMs: 2000 });
    try {
      // A port nothing listens on.
      const port = await unusedPort();
      const now = new Date();
      const refused = await sender.send(`http://127.0.0.1:${port}/hooks`, [], 'evt', '{}', now);
      expect(refused).toMatchObject({ status: null, error: 'the connection was refused' });
      const unknown = await sender.send('http://no-such-host.invalid/hooks', [], 'evt', '{}', now);
      expect(unknown).toMatchObject({
        status: null,
        error: "the endpoint's host name could not be resolved (DNS)",
      });
      // Never an error's own words or an address.
      expect(causeOf(Object.assign(new Error('connect 10.0.0.1:443'), { code: 'EWHATEVER' }))).not.toContain(
        '10.0.0.1',
      );
    } finally {
      sender.close();
    }
  });
});

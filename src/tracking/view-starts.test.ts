import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import { outboxMetrics } from '../events/metrics.ts';
import { testApp } from '../testing/app.ts';
import { managementClient, recordedEvents } from '../testing/management.ts';
import { expectFiguresMatch } from '../testing/recompute.ts';
import { openTestStore, type StoreKind, storeKinds, type TestStore } from '../testing/stores.ts';
import { openViewStartThread, type ViewStartThread } from './view-thread.ts';

const MINUTE = 60_000;

/**
 * View starts that arrive together are written together (view-starts.ts); each must still
 * be answered, counted and announced exactly as if it had come alone. In-process on both
 * stores, and through the thread `dealroom serve` uses on PostgreSQL (view-thread.ts).
 */
type Mode = 'in process' | 'thread';
const modes = storeKinds().flatMap((kind): [StoreKind, Mode][] =>
  kind === 'postgres'
    ? [
        [kind, 'in process'],
        [kind, 'thread'],
      ]
    : [[kind, 'in process']],
);

describe.each(modes)('view starts arriving together (%s store, %s)', (kind, mode) => {
  // The thread reads the system clock, so every mode runs on real time, with explicit times.
  const clock = new ManualClock(new Date());
  const metrics = createMetrics();
  let db: TestStore;
  let thread: ViewStartThread | undefined;
  let api: Awaited<ReturnType<typeof testApp>>;
  let admin: Awaited<ReturnType<typeof managementClient>>;

  beforeAll(async () => {
    db = await openTestStore(kind);
    if (mode === 'thread') {
      thread = await openViewStartThread({ connectionString: db.url as string, maxConnections: 2 });
    }
    api = await testApp(db, clock);
    admin = await managementClient(db, clock, metrics, { startView: thread?.startView });
  });
  afterAll(async () => {
    await admin?.app.close();
    await api?.app.close();
    await thread?.close();
    await db?.close();
  });

  const at = (minutesFromNow: number) =>
    new Date(clock.now().getTime() + minutesFromNow * MINUTE).toISOString();

  it('answers, counts and announces each as it would alone', async () => {
    const teamId = (await admin.post('/teams', { name: 'Burst' })).body.data.id;
    const key = (await admin.post(`/teams/${teamId}/keys`, {})).body.data.key;
    const roomId = (await admin.post(`/teams/${teamId}/deal-rooms`, { name: 'Room' })).body.data.id;
    const doc = async (name: string) =>
      (await admin.post(`/deal-rooms/${roomId}/documents`, { name, status: 'published' })).body.data.id;
    const deck = await doc('Deck');
    const model = await doc('Model');
    const link = async (body: Record<string, unknown>) =>
      (await admin.post(`/deal-rooms/${roomId}/links`, body)).body.data.id;
    const open = await link({ name: 'Open' });
    const deckOnly = await link({ name: 'Deck only', documentIds: [deck] });
    const closed = await link({ name: 'Closed' });
    expect((await admin.post(`/links/${closed}/deactivate`)).status).toBe(200);
    const emailOnly = await link({ name: 'Email only', requiresEmail: true });

    const view = (
      linkId: string,
      documentId: string,
      viewer: object,
      startedAt: string,
      idempotencyKey?: string,
    ) =>
      admin.post(
        `/links/${linkId}/views`,
        { documentId, viewer, startedAt },
        idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
      );
    // Known before the burst: Cy viewed three hours ago (a return is due), Dee ten minutes ago.
    expect((await view(open, deck, { email: 'cy@example.com' }, at(-180))).status).toBe(201);
    expect((await view(open, deck, { email: 'dee@example.com' }, at(-12))).status).toBe(201);
    const before = new Set((await recordedEvents(db)).map((e) => e.id));

    const burst = await Promise.all([
      view(open, deck, { email: 'ann@example.com', name: 'Ann' }, at(-5)),
      view(open, model, { email: ' ANN@example.com ' }, at(-4)),
      view(deckOnly, deck, { email: 'cy@example.com' }, at(-3)),
      view(open, deck, { email: 'dee@example.com' }, at(-2)),
      view(closed, deck, { email: 'eve@example.com' }, at(-2)),
      view(deckOnly, model, { email: 'eve@example.com' }, at(-2)),
      view(emailOnly, deck, { visitorId: 'anon-1' }, at(-2)),
      view(open, deck, { email: 'fay@example.com' }, at(10)),
      view(open, deck, { visitorId: 'anon-2' }, at(-1), 'retry-1'),
      view(open, deck, { visitorId: 'anon-2' }, at(-1), 'retry-1'),
      view(open, model, { visitorId: 'anon-2' }, at(-1), 'retry-1'),
      view(deckOnly, model, { visitorId: 'anon-3' }, at(-1), 'retry-2'),
    ]);
    expect(burst.map((r) => r.status)).toEqual([201, 201, 201, 201, 409, 404, 400, 400, 201, 201, 409, 404]);
    expect(burst[4]?.body).toEqual({ error: 'This link is disabled', code: 'conflict' });
    expect(burst[5]?.body).toEqual({ error: 'Document not found on this link', code: 'not_found' });
    expect(burst[7]?.body.error).toBe('startedAt must not be more than 5 minutes in the future');
    // The repeat of a keyed start gets the first answer; a refused keyed start left its key free.
    expect(burst[9]?.body).toEqual(burst[8]?.body);
    expect((await view(deckOnly, model, { visitorId: 'anon-3' }, at(-1), 'retry-2')).status).toBe(404);
    expect(burst[0]?.body.data).toMatchObject({
      dealRoomId: roomId,
      documentId: deck,
      linkId: open,
      startedAt: at(-5),
      durationSeconds: 0,
    });

    const events = (await recordedEvents(db)).filter((e) => !before.has(e.id));
    const started = events.filter((e) => e.type === 'view.started').map((e) => e.data.id);
    expect(started.sort()).toEqual([0, 1, 2, 3, 8].map((i) => burst[i]?.body.data.id).sort());
    const created = events.filter((e) => e.type === 'viewer.created').map((e) => e.data);
    expect(created.map((v) => v.email).sort()).toEqual(['', 'ann@example.com']);
    const ann = created.find((v) => v.email === 'ann@example.com');
    expect(ann).toMatchObject({ totalViews: 1, documentsViewed: 1, dealRoomId: roomId, linkName: 'Open' });
    const returned = events.filter((e) => e.type === 'viewer.returned').map((e) => e.data);
    expect(returned).toEqual([
      expect.objectContaining({
        email: 'cy@example.com',
        totalViews: 2,
        lastViewedAt: at(-3),
        linkName: 'Deck only',
      }),
    ]);
    expect(events).toHaveLength(started.length + created.length + returned.length);

    const counted = (await outboxMetrics(metrics).eventsRecorded.get()).values.find(
      (v) => v.labels.type === 'view.started',
    );
    expect(counted?.value).toBe(2 + 5);
    await expectFiguresMatch({ db, clock, api }, key, teamId, [roomId]);
  });
});

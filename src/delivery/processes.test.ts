import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { openPostgres } from '../db/postgres.ts';
import { createDealRoom } from '../deal-rooms/commands.ts';
import { createTeam } from '../teams/commands.ts';
import { startWorkerProcess, type WorkerProcess } from '../testing/process.ts';
import { type Receiver, startReceiver, until } from '../testing/receiver.ts';
import { freshStoreEnv, storeKinds } from '../testing/stores.ts';
import { createEndpoint } from '../webhooks/commands.ts';
import type { WriteContext } from '../write/transaction.ts';

/**
 * Real worker processes on one PostgreSQL: a worker killed mid-delivery loses nothing, and
 * two workers never attempt one delivery at once.
 */
describe.runIf(storeKinds().includes('postgres'))('webhook workers as processes (postgres)', () => {
  let store: Awaited<ReturnType<typeof freshStoreEnv>>;
  let db: Database;
  let ctx: WriteContext;
  let receiver: Receiver;
  const workers: WorkerProcess[] = [];
  const env = () => ({
    ...store.env,
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_RETRY_BASE_MS: '50',
    // The claim lapses 10 s after the timeout: a dead worker's delivery is taken 12 s on.
    WEBHOOK_TIMEOUT_MS: '2000',
  });

  beforeAll(async () => {
    store = await freshStoreEnv('postgres', { migrated: true });
    db = await openPostgres({ connectionString: store.env.DATABASE_URL as string, maxConnections: 4 });
    ctx = { db, clock: systemClock, appUrl: 'http://localhost:3000', allowPrivateUrls: true };
    receiver = await startReceiver();
  });
  afterEach(() => {
    for (const worker of workers.splice(0)) worker.child.kill('SIGKILL');
  });
  afterAll(async () => {
    await receiver?.close();
    await db?.close();
    await store?.drop();
  });

  async function teamWithEndpoint(path: string) {
    const team = await createTeam(ctx, { name: path });
    await createEndpoint(ctx, team.id, { url: receiver.url(path) });
    return team.id;
  }
  async function eventIds(teamId: string): Promise<string[]> {
    const rows = await db.query<{ id: string }>('SELECT id FROM webhook_events WHERE team_id = $1', [teamId]);
    return rows.map((r) => r.id);
  }
  const delivered = (path: string) => new Set(receiver.to(path).map((r) => String(r.headers['webhook-id'])));

  it('loses nothing when a worker is killed (kill -9) while a receiver holds its request', {
    timeout: 60_000,
  }, async () => {
    const teamId = await teamWithEndpoint('/crash');
    let held = false;
    const answered = new Set<string>();
    receiver.on('/crash', (request) => {
      if (!held) {
        held = true;
        return { hang: true };
      }
      answered.add(String(request.headers['webhook-id']));
      return { status: 200 };
    });
    const first = await startWorkerProcess(env());
    workers.push(first);
    for (let i = 0; i < 20; i++) await createDealRoom(ctx, teamId, { name: `Room ${i}` });
    await until(() => held, 'the held request');
    first.child.kill('SIGKILL');
    await first.exited;
    const heldId = String(receiver.to('/crash')[0]?.headers['webhook-id']);

    workers.push(await startWorkerProcess(env()));
    const ids = await eventIds(teamId);
    expect(ids).toHaveLength(20);
    await until(() => ids.every((id) => answered.has(id)), 'every event delivered', 40_000);
    // The held one was sent again, once its claim lapsed.
    expect(receiver.to('/crash').filter((r) => r.headers['webhook-id'] === heldId)).toHaveLength(2);
    await until(async () => {
      const [now] = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE e.team_id = $1 AND d.state = 'succeeded'`,
        [teamId],
      );
      return now?.n === 20;
    }, 'every delivery recorded as succeeded');
  });

  it('shares the queue between two workers: hundreds of events, none attempted twice at once, none lost', {
    timeout: 60_000,
  }, async () => {
    const teamIds = await Promise.all(['/a', '/b', '/c'].map((path) => teamWithEndpoint(path)));
    const inFlight = new Set<string>();
    let overlaps = 0;
    for (const path of ['/a', '/b', '/c']) {
      receiver.on(path, (request) => {
        const id = `${path} ${request.headers['webhook-id']}`;
        if (inFlight.has(id)) overlaps++;
        inFlight.add(id);
        setTimeout(() => inFlight.delete(id), 15);
        return { status: 200, delayMs: 10 };
      });
    }
    workers.push(...(await Promise.all([startWorkerProcess(env()), startWorkerProcess(env())])));
    // Written while the workers deliver, a few at a time as a dashboard would.
    for (let i = 0; i < 120; i++) {
      await Promise.all(teamIds.map((teamId) => createDealRoom(ctx, teamId, { name: `Room ${i}` })));
    }
    const expected = (await Promise.all(teamIds.map(eventIds))).flat();
    expect(expected).toHaveLength(360);
    const all = () => new Set(['/a', '/b', '/c'].flatMap((p) => [...delivered(p)]));
    await until(() => expected.every((id) => all().has(id)), 'every event delivered', 40_000);
    expect(overlaps).toBe(0);
    // No crash, so no claim lapsed: each event was sent exactly once.
    expect(receiver.to('/a').length + receiver.to('/b').length + receiver.to('/c').length).toBe(360);
    // A worker records its attempt once the answer is in: the receiver can count it first.
    const attempts = async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_attempts WHERE status = 200'))[0]
        ?.n ?? 0;
    await until(async () => (await attempts()) >= 360, 'every attempt recorded');
    expect(await attempts()).toBeGreaterThanOrEqual(360);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock, systemClock } from '../core/clock.ts';
import { createDealRoom } from '../deal-rooms/commands.ts';
import { DeliveryWorker } from '../delivery/worker.ts';
import { createTeam } from '../teams/commands.ts';
import { testApp } from '../testing/app.ts';
import { load, make, teamWithKey } from '../testing/fixtures.ts';
import { postgresBinDir, startOwnPostgres } from '../testing/own-postgres.ts';
import { startReceiver, until } from '../testing/receiver.ts';
import { createEndpoint } from '../webhooks/commands.ts';
import { writeContexts } from '../write/context.ts';
import type { Database } from './database.ts';
import { migrate } from './migrate.ts';
import { openPostgres } from './postgres.ts';

const required = process.env.REQUIRE_POSTGRES === '1';

describe.runIf(postgresBinDir() !== undefined || required)('database outage', () => {
  let server: Awaited<ReturnType<typeof startOwnPostgres>>;
  let db: Database;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const outages: boolean[] = [];

  beforeAll(async () => {
    server = await startOwnPostgres();
    db = await openPostgres({
      connectionString: server.url,
      statementTimeoutMs: 5000,
      onAvailability: (available) => outages.push(available),
    });
    await migrate(db);
  });
  afterAll(async () => {
    await db?.close();
    server?.destroy();
  });

  it('answers 500 and not-ready while PostgreSQL is down, logs the outage once, and recovers by itself', async () => {
    const logged: string[] = [];
    const { teamId, key } = await teamWithKey(db, clock);
    const room = make.room(teamId);
    await load(db, clock, { dealRooms: [room] });
    const { app, get, scrape } = await testApp(db, clock, {
      level: 'info',
      stream: { write: (line: string) => logged.push(line) },
    });
    try {
      expect((await get(`/v1/deal-rooms/${room.id}`, key)).status).toBe(200);

      server.stop();
      const down = await get(`/v1/deal-rooms/${room.id}`, key);
      expect(down.status).toBe(500);
      expect(down.body).toEqual({ error: 'An unexpected error occurred', code: 'internal_error' });
      // Many requests during the outage: one outage reported, no error line per request.
      const before = logged.length;
      for (let i = 0; i < 20; i++) expect((await get(`/v1/deal-rooms/${room.id}`, key)).status).toBe(500);
      const lines = logged.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(lines.filter((line) => line.level >= 50)).toEqual([]);
      expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(0); // at debug
      expect(outages).toEqual([false]);
      expect(await scrape()).toMatch(
        /^dealroom_request_failures_total\{reason="database_unavailable"\} 2[1-9]$/m,
      );
      const notReady = await get('/readyz');
      expect(notReady.status).toBe(503);
      expect(notReady.body.checks.database).toBe('unavailable');
      expect((await get('/healthz')).status).toBe(200);

      server.start();
      expect((await get('/readyz')).status).toBe(200);
      expect(outages).toEqual([false, true]);
      const back = await get(`/v1/deal-rooms/${room.id}`, key);
      expect(back.status).toBe(200);
      expect(back.body.data.id).toBe(room.id);
    } finally {
      await app.close();
    }
  });

  it('keeps the webhook worker quiet through the outage (one line), then delivers what waited', async () => {
    const receiver = await startReceiver();
    const ctx = { db, clock: systemClock, appUrl: 'http://localhost:3000', allowPrivateUrls: true };
    const team = await createTeam(ctx, { name: 'Outage' });
    await createEndpoint(ctx, team.id, { url: receiver.url('/outage') });
    await createDealRoom(ctx, team.id, { name: 'Waits' });
    const lines: { level: string; message: string }[] = [];
    const log = (level: string) => (_object: object, message: string) => lines.push({ level, message });
    server.stop();
    const worker = new DeliveryWorker({
      db,
      clock: systemClock,
      logger: { info: log('info'), warn: log('warn'), error: log('error') },
      appUrl: 'http://localhost:3000',
      retryBaseMs: 50,
      allowPrivateUrls: true,
      userAgent: 'test',
      pollMs: 20,
      writeContext: writeContexts(ctx),
    });
    worker.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 2500));
      expect(lines).toEqual([{ level: 'error', message: 'webhook worker: database unreachable; retrying' }]);
      server.start();
      await until(() => receiver.to('/outage').length === 1, 'the delivery after the outage');
      expect(lines.map((line) => line.message)).toEqual([
        'webhook worker: database unreachable; retrying',
        'webhook worker: database reachable again',
      ]);
    } finally {
      await worker.stop();
      await receiver.close();
    }
  });
});

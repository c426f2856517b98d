import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { openPostgres } from '../db/postgres.ts';
import { createDealRoom } from '../deal-rooms/commands.ts';
import { createLink } from '../links/commands.ts';
import { createTeam } from '../teams/commands.ts';
import { type Server, startServer } from '../testing/process.ts';
import { until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { freshStoreEnv, storeKinds } from '../testing/stores.ts';
import { recordVisit } from '../tracking/commands.ts';
import { acceptInvitation, inviteUser } from '../users/commands.ts';
import { writeContexts } from '../write/context.ts';

/**
 * `dealroom serve` killed with kill -9 while visit emails are due, and while they are being
 * sent, on one PostgreSQL and a real SMTP server process: every visit's email arrives, each
 * visit's under one Message-ID.
 */
describe.runIf(storeKinds().includes('postgres'))('visit emails across a crash (postgres)', () => {
  let store: Awaited<ReturnType<typeof freshStoreEnv>>;
  let db: Database;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  const servers: Server[] = [];
  // The visits are written here, their emails due 2 s later; the servers send them.
  const writes = () =>
    writeContexts({ db, clock: systemClock, appUrl: 'http://localhost:3000', visitEmailDelayMs: 2000 });
  const serve = async () => {
    const server = await startServer([], {
      ...store.env,
      SMTP_URL: smtp.url,
      // A send has 1 s a step: a dead worker's claim lapses 11 s on.
      SMTP_TIMEOUT_SECONDS: '1',
    });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    store = await freshStoreEnv('postgres', { migrated: true });
    db = await openPostgres({ connectionString: store.env.DATABASE_URL as string, maxConnections: 4 });
    // Each message takes the relay 150 ms to accept, so sends are under way when the server dies.
    smtp = await startSmtpServer({ acceptDelayMs: 150 });
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop('SIGKILL');
  });
  afterAll(async () => {
    await smtp?.stop();
    await db?.close();
    await store?.drop();
  });

  /** A room its creator follows, and a link to record visits on. */
  async function followedRoom(name: string) {
    const team = await createTeam(writes()(), { name });
    const email = `owner@${name.toLowerCase()}.example`;
    const invitation = await inviteUser(writes()(), { teamId: team.id, email, role: 'owner' });
    await acceptInvitation(writes()(), invitation.path.slice('/invite/'.length), 'correct horse battery', {
      address: '127.0.0.1',
      userAgent: 'test',
    });
    const asOwner = writes()({
      actor: { kind: 'user', userId: invitation.userId, teamId: team.id, email },
      teamId: team.id,
    });
    const room = await createDealRoom(asOwner, team.id, { name: `${name} room` });
    const link = await createLink(writes()(), room.id, { name: 'Buyers' });
    return { email, link: link.id };
  }
  async function visits(link: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const visit = await recordVisit(writes()(), link, { viewer: { email: `reader${i}@buyer.example` } });
      ids.push(visit.id);
    }
    return ids;
  }
  /** The Message-ID of each email the relay accepted for the address, in order. */
  const messageIds = (to: string) =>
    smtp.received
      .filter((m) => m.to.includes(to))
      .map((m) => /^Message-ID:\s*<([^>]+)>/im.exec(m.raw)?.[1] ?? '');
  async function notificationIds(email: string): Promise<string[]> {
    const rows = await db.query<{ id: string }>(
      `SELECT n.id FROM notifications n JOIN users u ON u.id = n.user_id WHERE u.email = $1`,
      [email],
    );
    return rows.map((r) => `${r.id}@deal-room.notifications`).sort();
  }

  it('sends every email that fell due while the server was down, once each', {
    timeout: 60_000,
  }, async () => {
    const { email, link } = await followedRoom('Down');
    const first = await serve();
    await visits(link, 12);
    // Killed before any is due.
    await first.stop('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(messageIds(email)).toEqual([]);
    await serve();
    const expected = await notificationIds(email);
    expect(expected).toHaveLength(12);
    await until(() => messageIds(email).length >= 12, 'twelve visit emails', 30_000);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect([...messageIds(email)].sort()).toEqual(expected);
  });

  it('sends the emails being sent when it died again, under the same Message-ID, and loses none', {
    timeout: 90_000,
  }, async () => {
    const { email, link } = await followedRoom('Sending');
    await serve();
    await visits(link, 16);
    // Killed as soon as the relay accepted the second one: others are on their way.
    await until(() => messageIds(email).length >= 2, 'the first visit emails', 30_000);
    await servers.splice(0)[0]?.stop('SIGKILL');
    const atKill = messageIds(email).length;
    expect(atKill).toBeLessThan(16);
    await serve();
    const expected = await notificationIds(email);
    expect(expected).toHaveLength(16);
    await until(
      () => expected.every((id) => messageIds(email).includes(id)),
      'every visit email, after the dead claims lapse',
      45_000,
    );
    const sent = messageIds(email);
    // None lost. A message the relay accepted in the instant before the kill, before the
    // worker could record it, may come once more, under its own Message-ID (mail clients
    // show it once): at most the few being sent together.
    expect(new Set(sent).size).toBe(16);
    expect(sent.length - 16).toBeLessThanOrEqual(4);
    // Each is recorded as sent just after the relay accepted it.
    await until(async () => {
      const [states] = await db.query<{ sent: number }>(
        `SELECT count(*) FILTER (WHERE n.state = 'sent')::int AS sent
           FROM notifications n JOIN users u ON u.id = n.user_id WHERE u.email = $1`,
        [email],
      );
      return states?.sent === 16;
    }, 'every visit email recorded as sent');
  });
});

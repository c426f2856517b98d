import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDealRoom } from '../deal-rooms/commands.ts';
import { type Mailer, mailerOf } from '../mail/mailer.ts';
import { testWebApp } from '../testing/app.ts';
import { managedRoom, useManagement } from '../testing/management.ts';
import { until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { storeKinds } from '../testing/stores.ts';
import { acceptInvitation, inviteUser } from '../users/commands.ts';
import { writeContexts } from '../write/context.ts';
import { deliverNotifications, queueDigests, setVisitEmails } from './commands.ts';

const APP_URL = 'https://rooms.example.test';

describe.each(storeKinds())('visit emails and digests (%s store)', (kind) => {
  const s = useManagement(kind, '2026-11-26T14:00:00.000Z');
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailer: Mailer;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const writes = () => writeContexts({ db: s.db, clock: s.clock, appUrl: APP_URL });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    mailer = mailerOf({ smtpUrl: smtp.url, from: 'Deal Room <rooms@dealroom.example>' }) as Mailer;
    web = await testWebApp(s.db, s.clock, { appUrl: APP_URL });
  });
  afterAll(async () => {
    await web?.close();
    mailer?.close();
    await smtp?.stop();
  });

  /** A team's user who accepted the invitation (only they are told). */
  async function user(teamId: string, email: string) {
    const invitation = await inviteUser(writes()(), { teamId, email, role: 'owner' });
    const secret = invitation.path.slice('/invite/'.length);
    await acceptInvitation(writes()(), secret, 'correct horse battery', {
      address: '127.0.0.1',
      userAgent: 'test',
    });
    return invitation.userId;
  }
  const asUser = (userId: string, teamId: string, email: string) =>
    writes()({ actor: { kind: 'user', userId, teamId, email }, teamId });
  /** The mails to an address, their header lines unfolded. */
  const mailsTo = (email: string) =>
    smtp.received
      .filter((m) => m.to.includes(email))
      .map((m) => ({ ...m, raw: m.raw.replace(/\r?\n[ \t]+/g, ' ') }));
  /** What the worker does each second; `null`: without SMTP. */
  const deliver = (withMail: Mailer | null = mailer) =>
    deliverNotifications(writes()(), { mailer: withMail ?? undefined, appUrl: APP_URL });

  it('mails each follower once, after the delay, what a visit read and a refused download; unsubscribes in one POST', async () => {
    const { teamId, documentId, linkId } = await managedRoom(s.admin, {
      team: 'Told',
      room: 'unused',
      link: 'x',
    });
    const nina = await user(teamId, 'nina@team.example');
    const omar = await user(teamId, 'omar@team.example');
    // Nina creates the room (she follows it); Omar does not follow it.
    const room = await createDealRoom(asUser(nina, teamId, 'nina@team.example'), teamId, {
      name: 'Project Atlas',
    });
    const deck = (
      await s.admin.post(`/deal-rooms/${room.id}/documents`, { name: 'CIM', status: 'published' })
    ).body.data.id as string;
    const link = (
      await s.admin.post(`/deal-rooms/${room.id}/links`, { name: 'Buyers', allowDownload: false })
    ).body.data.id as string;
    expect(documentId && linkId && omar).toBeTruthy();

    const viewer = { email: 'cfo@buyer.example', name: 'Carla' };
    expect((await s.admin.post(`/links/${link}/visits`, { viewer })).status).toBe(201);
    const view = await s.admin.post(`/links/${link}/views`, { documentId: deck, viewer });
    await s.admin.post(`/views/${view.body.data.id}/complete`, { durationSeconds: 200 });
    expect((await s.admin.post(`/links/${link}/downloads`, { documentId: deck, viewer })).status).toBe(403);

    // Not before the delay.
    s.clock.advance(170_000);
    expect(await deliver()).toBe(0);
    s.clock.advance(11_000);
    expect(await deliver()).toBe(1);
    await until(() => mailsTo('nina@team.example').length === 1, 'the visit email');
    expect(mailsTo('omar@team.example')).toHaveLength(0);
    const mail = mailsTo('nina@team.example')[0]?.raw ?? '';
    expect(mail).toMatch(/Subject: cfo@buyer\.example opened Project Atlas/);
    expect(mail).toContain('CIM: 3 min 20 s');
    expect(mail).toContain('Refused downloads: CIM');
    expect(mail).toContain('The email was not verified');
    expect(mail).toMatch(
      /List-Unsubscribe: <https:\/\/rooms\.example\.test\/unsubscribe\/[A-Za-z0-9_-]{43}>/,
    );
    expect(mail).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    expect(mail).toContain('Content-Type: text/html');
    // Sent once.
    s.clock.advance(600_000);
    expect(await deliver()).toBe(0);

    // A worker that dies holding a claim: the email is sent by the next one after the lease, once.
    s.clock.advance(60_000);
    await s.admin.post(`/links/${link}/visits`, { viewer });
    s.clock.advance(181_000);
    const held = await s.db.query<{ id: string }>(
      `UPDATE notifications SET state = 'sending', lease_until = $1, attempts = 1
        WHERE state = 'pending' RETURNING id`,
      [new Date(s.clock.now().getTime() + 60_000)],
    );
    expect(held).toHaveLength(1);
    expect(await deliver()).toBe(0);
    s.clock.advance(61_000);
    expect(await deliver()).toBe(1);
    await until(() => mailsTo('nina@team.example').length === 2, 'the second visit email');
    expect(mailsTo('nina@team.example')[1]?.raw).toMatch(
      /Subject: cfo@buyer\.example came back to Project Atlas/,
    );

    // One POST on the unsubscribe address, as a mail client sends it: no more visit emails for the room.
    const address =
      /List-Unsubscribe: <https:\/\/rooms\.example\.test(\/unsubscribe\/[A-Za-z0-9_-]{43})>/.exec(
        mailsTo('nina@team.example')[1]?.raw ?? '',
      )?.[1];
    const page = await web.inject({ method: 'GET', url: address ?? '' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Unsubscribe');
    const done = await web.inject({
      method: 'POST',
      url: address ?? '',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('no more visit emails for Project Atlas');
    s.clock.advance(60_000);
    await s.admin.post(`/links/${link}/visits`, { viewer });
    s.clock.advance(181_000);
    expect(await deliver()).toBe(0);
    expect(mailsTo('nina@team.example')).toHaveLength(2);
  });

  it('keeps them for the Notifications page without SMTP, and sends a daily digest at the hour of the zone', async () => {
    const { teamId } = await managedRoom(s.admin, { team: 'Kept', room: 'unused', link: 'x' });
    await s.admin.patch(`/teams/${teamId}`, { timezone: 'America/New_York' });
    const lee = await user(teamId, 'lee@team.example');
    const room = await createDealRoom(asUser(lee, teamId, 'lee@team.example'), teamId, { name: 'Harbor' });
    const link = (await s.admin.post(`/deal-rooms/${room.id}/links`, { name: 'Bank' })).body.data
      .id as string;
    await s.admin.post(`/links/${link}/visits`, { viewer: { email: 'a@bank.example' } });
    s.clock.advance(181_000);
    expect(await deliver(null)).toBe(1);
    const [kept] = await s.db.query<{ state: string; subject: string }>(
      'SELECT state, subject FROM notifications WHERE user_id = $1',
      [lee],
    );
    expect(kept).toEqual({ state: 'kept', subject: 'a@bank.example opened Harbor' });
    expect(mailsTo('lee@team.example')).toHaveLength(0);

    // The digest: the day before, midnight to midnight in New York, at 08:00 there.
    await setVisitEmails(writes()(), lee, 'digest', 8);
    s.clock.set(new Date('2026-11-28T03:30:00.000Z')); // 22:30 on the 27th in New York
    await s.admin.post(`/links/${link}/visits`, { viewer: { email: 'b@bank.example' } });
    s.clock.set(new Date('2026-11-28T12:00:00.000Z')); // 07:00 on the 28th
    expect(await queueDigests(writes()())).toBe(0);
    s.clock.set(new Date('2026-11-28T13:00:00.000Z')); // 08:00
    expect(await queueDigests(writes()())).toBe(1);
    expect(await queueDigests(writes()())).toBe(0);
    expect(await deliver()).toBe(1);
    await until(() => mailsTo('lee@team.example').length === 1, 'the digest');
    const digest = mailsTo('lee@team.example')[0]?.raw ?? '';
    expect(digest).toMatch(/Subject: Your rooms on 2026-11-27: 1 visit, 0 readers/);
    // An instant email is no longer queued for a user who chose the digest.
    await s.admin.post(`/links/${link}/visits`, { viewer: { email: 'c@bank.example' } });
    const due = await s.db.query("SELECT 1 FROM notifications WHERE user_id = $1 AND state = 'pending'", [
      lee,
    ]);
    expect(due).toHaveLength(0);
  });
});

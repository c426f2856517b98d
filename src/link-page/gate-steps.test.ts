import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { type Mailer, mailerOf } from '../mail/mailer.ts';
import { testWebApp } from '../testing/app.ts';
import { linkVisitor } from '../testing/link-visitor.ts';
import { managementClient } from '../testing/management.ts';
import { until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';

const MINUTE = 60_000;

describe.each(storeKinds())("the gate's later steps: codes, lists, agreements (%s store)", (kind) => {
  let db: Database;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailer: Mailer;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let plainAdmin: Awaited<ReturnType<typeof managementClient>>;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const startView = createViewStartWriter();

  beforeAll(async () => {
    db = await openTestStore(kind);
    smtp = await startSmtpServer();
    mailer = mailerOf({ smtpUrl: smtp.url, from: 'Deal Room <rooms@dealroom.example>' }) as Mailer;
    admin = await managementClient(db, clock, createMetrics(), { startView, mailConfigured: true });
    plainAdmin = await managementClient(db, clock, createMetrics(), { startView });
    web = await testWebApp(db, clock, { startView, mailer });
  });
  afterAll(async () => {
    await web?.close();
    await admin?.app.close();
    await plainAdmin?.app.close();
    mailer?.close();
    await smtp?.stop();
    await db?.close();
  });

  let rooms = 0;
  async function link(settings: Record<string, unknown>) {
    clock.advance(MINUTE);
    const teamId = (await admin.post('/teams', { name: 'Gate' })).body.data.id as string;
    const roomId = (await admin.post(`/teams/${teamId}/deal-rooms`, { name: `Room ${++rooms}` })).body.data
      .id as string;
    await admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Deck', status: 'published' });
    const created = await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Buyers', ...settings });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return {
      teamId,
      roomId,
      data: created.body.data as Record<string, unknown>,
      ...(created.body.data as { id: string; shortId: string }),
    };
  }

  /** The code in the latest mail to an address. */
  async function codeMailedTo(email: string, before = 0): Promise<string> {
    await until(
      () => smtp.received.filter((m) => m.to.includes(email)).length > before,
      `a code to ${email}`,
    );
    const mails = smtp.received.filter((m) => m.to.includes(email));
    return /\b(\d{6})\b/.exec(mails[mails.length - 1]?.raw ?? '')?.[1] ?? '';
  }

  const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email)).length;

  async function visits(roomId: string) {
    return db.query<{ verified: boolean; email: string }>(
      `SELECT s.verified, v.email FROM visits s JOIN viewers v ON v.id = s.viewer_id
        WHERE s.deal_room_id = $1 ORDER BY s.at`,
      [roomId],
    );
  }

  it('keeps the settings on the management API: lists in one case and ASCII domains, 400 naming a bad entry, 409 without mail', async () => {
    const { id, data } = await link({
      allowList: ['Anna@Bücher.Example', '@Buyer.example', '@buyer.EXAMPLE'],
      blockList: ['@rival.example'],
      agreement: '  Keep it confidential.  ',
    });
    expect(data).toMatchObject({
      verifyEmail: false,
      allowList: ['anna@xn--bcher-kva.example', '@buyer.example'],
      blockList: ['@rival.example'],
      agreement: 'Keep it confidential.',
    });
    const bad = await admin.patch(`/links/${id}`, { blockList: ['@rival.example', 'not an entry'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('blockList.1');
    const tooLong = await admin.patch(`/links/${id}`, { agreement: 'x'.repeat(20_001) });
    expect(tooLong.status).toBe(400);
    const noMail = await plainAdmin.patch(`/links/${id}`, { verifyEmail: true });
    expect(noMail.status).toBe(409);
    expect(noMail.body.code).toBe('conflict');
    const kept = await admin.patch(`/links/${id}`, { name: 'Buyers' });
    expect(kept.body.data).toMatchObject({ verifyEmail: false, blockList: ['@rival.example'] });
    const turnedOn = await admin.patch(`/links/${id}`, { verifyEmail: true });
    expect(turnedOn.body.data.verifyEmail).toBe(true);
  });

  it('mails a six-digit code and opens the room only with it; the visit is marked verified, and the browser is not asked again', async () => {
    const { shortId, roomId } = await link({ verifyEmail: true });
    const browser = linkVisitor(web);
    const posted = await browser.post(`/v/${shortId}`, {
      token: await browser.token(shortId),
      email: 'cfo@buyer.example',
      name: 'Carla',
    });
    expect(posted.statusCode).toBe(303);
    const step = await browser.get(`/v/${shortId}`);
    expect(step.body).toContain('Verification code');
    expect(step.body).toContain('>Verify<');
    expect(step.body).toContain('cfo@buyer.example');
    const code = await codeMailedTo('cfo@buyer.example');
    expect(code).toMatch(/^\d{6}$/);
    // Not through yet: no visit, and the room's documents are not shown.
    expect(await visits(roomId)).toHaveLength(0);
    const token = await browser.token(shortId);
    const wrong = await browser.post(`/v/${shortId}/verify`, {
      token,
      code: code === '000000' ? '111111' : '000000',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Incorrect code');
    const right = await browser.post(`/v/${shortId}/verify`, { token, code });
    expect(right.statusCode).toBe(303);
    expect((await browser.get(`/v/${shortId}`)).body).toContain('Deck');
    expect(await visits(roomId)).toEqual([{ verified: true, email: 'cfo@buyer.example' }]);
    // The code is used up.
    const again = await browser.post(`/v/${shortId}/verify`, { token, code });
    expect(again.statusCode).toBe(303);

    // Another link that verifies, same browser and email: no new code.
    const other = await link({ verifyEmail: true });
    const before = mailsTo('cfo@buyer.example');
    const through = await browser.post(`/v/${other.shortId}`, {
      token: await browser.token(other.shortId),
      email: 'CFO@buyer.example',
    });
    expect(through.statusCode).toBe(303);
    expect((await browser.get(`/v/${other.shortId}`)).body).toContain('Deck');
    expect(mailsTo('cfo@buyer.example')).toBe(before);
    expect(await visits(other.roomId)).toEqual([{ verified: true, email: 'cfo@buyer.example' }]);
  });

  it('gives a code five tries, even sent at once, and ten minutes; a new code is sent at most every 30 seconds', async () => {
    const { shortId } = await link({ verifyEmail: true });
    const browser = linkVisitor(web, '198.51.100.20');
    await browser.post(`/v/${shortId}`, { token: await browser.token(shortId), email: 'try@buyer.example' });
    const code = await codeMailedTo('try@buyer.example');
    const token = await browser.token(shortId);
    const wrong = code === '000000' ? '111111' : '000000';
    const burst = await Promise.all(
      Array.from({ length: 12 }, () => browser.post(`/v/${shortId}/verify`, { token, code: wrong })),
    );
    expect(burst.filter((r) => r.body.includes('Incorrect code'))).toHaveLength(5);
    expect(burst.filter((r) => r.body.includes('Too many incorrect codes'))).toHaveLength(7);
    const spent = await browser.post(`/v/${shortId}/verify`, { token, code });
    expect(spent.statusCode).toBe(401);
    expect(spent.body).toContain('Too many incorrect codes');

    // A new code, after the 30 seconds between two.
    const soon = await browser.post(`/v/${shortId}/resend`, { token });
    expect(soon.statusCode).toBe(429);
    expect(Number(soon.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(31_000);
    const before = mailsTo('try@buyer.example');
    const resent = await browser.post(`/v/${shortId}/resend`, { token: await browser.token(shortId) });
    expect(resent.statusCode).toBe(303);
    const fresh = await codeMailedTo('try@buyer.example', before);
    // Ten minutes later it has expired.
    clock.advance(10 * MINUTE + 1000);
    const late = await browser.post(`/v/${shortId}/verify`, {
      token: await browser.token(shortId),
      code: fresh,
    });
    expect(late.statusCode).toBe(401);
    expect(late.body).toContain('This code has expired');
  });

  it('refuses an email the lists keep out with a page that does not show the lists, and records the refusal', async () => {
    const { shortId, roomId } = await link({
      requiresEmail: true,
      allowList: ['@bücher.example', 'guest@else.example'],
      blockList: ['spy@bücher.example'],
    });
    const tryEmail = async (email: string) => {
      const browser = linkVisitor(web, '198.51.100.30');
      const answer = await browser.post(`/v/${shortId}`, { token: await browser.token(shortId), email });
      return answer;
    };
    for (const refused of ['someone@rival.example', 'SPY@xn--bcher-kva.example']) {
      const answer = await tryEmail(refused);
      expect(answer.statusCode, refused).toBe(403);
      expect(answer.body).toContain('This email cannot open this link');
      expect(answer.body).not.toContain('bücher');
      expect(answer.body).not.toContain('xn--');
      expect(answer.body).not.toContain('guest@else');
    }
    for (const admitted of ['anna@BÜCHER.example', 'Guest@else.example']) {
      expect((await tryEmail(admitted)).statusCode, admitted).toBe(303);
    }
    const records = await db.query<{ kind: string; email: string; address: string }>(
      'SELECT kind, email, address FROM gate_records WHERE deal_room_id = $1 ORDER BY at, email',
      [roomId],
    );
    expect(records.map((r) => [r.kind, r.email.toLowerCase(), r.address]).sort()).toEqual([
      ['refused', 'someone@rival.example', '198.51.100.30'],
      ['refused', 'spy@xn--bcher-kva.example', '198.51.100.30'],
    ]);
    expect((await visits(roomId)).map((v) => v.email.toLowerCase()).sort()).toEqual([
      'anna@bücher.example',
      'guest@else.example',
    ]);
  });

  it('asks for the agreement before the room, and records who accepted it, when and from where', async () => {
    const { shortId, roomId } = await link({
      requiresEmail: true,
      agreement: 'Do not share.\n\nSigned by reading.',
    });
    const browser = linkVisitor(web, '198.51.100.40');
    const posted = await browser.post(`/v/${shortId}`, {
      token: await browser.token(shortId),
      email: 'lee@buyer.example',
      name: 'Lee',
    });
    expect(posted.statusCode).toBe(303);
    const step = await browser.get(`/v/${shortId}`);
    expect(step.body).toContain('Do not share.');
    expect(step.body).toContain('>I agree<');
    expect(step.body).not.toContain('Deck');
    const documents = await db.query<{ id: string }>('SELECT id FROM documents WHERE deal_room_id = $1', [
      roomId,
    ]);
    expect((await browser.get(`/v/${shortId}/d/${documents[0]?.id}`)).statusCode).toBe(404);
    expect(await visits(roomId)).toHaveLength(0);
    const agreed = await browser.post(`/v/${shortId}/agree`, { token: await browser.token(shortId) });
    expect(agreed.statusCode).toBe(303);
    expect((await browser.get(`/v/${shortId}`)).body).toContain('Deck');
    const [record] = await db.query<{ kind: string; email: string; name: string; address: string; at: Date }>(
      'SELECT kind, email, name, address, at FROM gate_records WHERE deal_room_id = $1',
      [roomId],
    );
    expect(record).toMatchObject({
      kind: 'agreed',
      email: 'lee@buyer.example',
      name: 'Lee',
      address: '198.51.100.40',
    });
    expect(record?.at.toISOString()).toBe(clock.now().toISOString());
    expect(await visits(roomId)).toHaveLength(1);
    // A changed agreement is asked again.
    const { id } = (
      await db.query<{ id: string }>('SELECT id FROM links WHERE short_id = $1', [shortId])
    )[0] ?? {
      id: '',
    };
    await admin.patch(`/links/${id}`, { agreement: 'New terms.' });
    expect((await browser.get(`/v/${shortId}`)).body).toContain('Continue');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAnalytics } from '../analytics/service.ts';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { mailerOf } from '../mail/mailer.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { testWebApp } from '../testing/app.ts';
import { linkVisitor } from '../testing/link-visitor.ts';
import { managementClient, recordedEvents } from '../testing/management.ts';
import { SETTING_NAME } from '../testing/pages.ts';
import { until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';
import { inviteUser } from '../users/commands.ts';

const PASSWORD = 'a long enough password';

describe.each(storeKinds())('the dashboard (%s store)', (kind) => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let mailer: ReturnType<typeof mailerOf>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const startView = createViewStartWriter();

  beforeAll(async () => {
    db = await openTestStore(kind);
    admin = await managementClient(db, clock, createMetrics(), { startView });
    smtp = await startSmtpServer();
    mailer = mailerOf({ smtpUrl: smtp.url, from: 'Deal Room <rooms@dealroom.example>' });
    web = await testWebApp(db, clock, { mailer, startView, allowPrivateUrls: true });
  });
  afterAll(async () => {
    mailer?.close();
    await smtp?.stop();
    await web?.close();
    await admin?.app.close();
    await db?.close();
  });

  /** A browser: its cookies, and requests that carry them. */
  const browser = (address = '203.0.113.9') => linkVisitor(web, address);

  /** A team with a signed-in user of the role, through an invitation accepted in a browser. */
  async function member(role: 'owner' | 'admin' | 'member', teamId?: string) {
    clock.advance(60_000);
    const team = teamId ?? ((await admin.post('/teams', { name: 'Dashboard team' })).body.data.id as string);
    const email = `${role}-${Math.random().toString(36).slice(2, 8)}@team.example`;
    const invitation = await inviteUser({ db, clock, appUrl: '' }, { teamId: team, email, role });
    const person = browser();
    const form = await person.get(invitation.path);
    expect(form.statusCode).toBe(200);
    const token = /name="_form" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const accepted = await person.post(invitation.path, {
      _form: token,
      password: PASSWORD,
      confirm: PASSWORD,
    });
    expect(accepted.statusCode).toBe(303);
    return { team, email, person, invitation };
  }

  it('sends an invalid form back as its page: 400, every value as typed, an error summary naming the field, the navigation', async () => {
    const { person, email } = await member('owner');
    const _csrf = await person.csrf();
    const before = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints'))[0]?.n;
    const events = ['view.started', 'download.denied'];
    const endpoint = await person.post('/app/settings/webhooks', { _csrf, url: 'ftp://hooks <bad>', events });
    expect(endpoint.statusCode).toBe(400);
    expect(endpoint.body).toMatch(/class="error-summary"[^>]*role="alert"/);
    expect(endpoint.body).toMatch(/<a href="#endpoint-url">URL [^<]+<\/a>/);
    expect(endpoint.body).toContain('value="ftp://hooks &lt;bad&gt;"');
    expect(endpoint.body).toContain('aria-invalid="true" aria-describedby="endpoint-url-error"');
    for (const event of events) expect(endpoint.body).toContain(`value="${event}" checked`);
    expect(endpoint.body).toContain('aria-label="Main"');
    expect(endpoint.body).not.toMatch(SETTING_NAME);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints'))[0]?.n).toBe(
      before,
    );

    // An endpoint is changed in place: a refused URL comes back with what was typed, a good one is saved.
    const made = await person.post('/app/settings/webhooks', { _csrf, url: 'https://hooks.example.com/a' });
    expect(made.statusCode).toBe(201);
    const endpointId = (
      await db.query<{ id: string }>('SELECT id FROM webhook_endpoints ORDER BY created_at DESC LIMIT 1')
    )[0]?.id as string;
    const badEdit = await person.post(`/app/webhooks/${endpointId}`, {
      _csrf,
      url: 'ftp://hooks.example.com/x',
      events: ['view.started'],
    });
    expect(badEdit.statusCode).toBe(400);
    expect(badEdit.body).toMatch(/<a href="#edit-url">URL [^<]+<\/a>/);
    expect(badEdit.body).toContain('value="ftp://hooks.example.com/x"');
    const edited = await person.post(`/app/webhooks/${endpointId}`, {
      _csrf,
      url: 'https://hooks.example.com/b',
      events: ['view.started', 'view.completed'],
    });
    expect(edited.statusCode).toBe(303);
    const [row] = await db.query<{ url: string; event_types: string[] }>(
      'SELECT url, event_types FROM webhook_endpoints WHERE id = $1',
      [endpointId],
    );
    expect(row).toEqual({
      url: 'https://hooks.example.com/b',
      event_types: ['view.completed', 'view.started'],
    });

    const invite = await person.post('/app/settings/users', { _csrf, email: 'not an email', role: 'admin' });
    expect(invite.statusCode).toBe(400);
    expect(invite.body).toMatch(/<a href="#invite-email">Enter a valid email<\/a>/);
    expect(invite.body).toContain('value="not an email"');
    expect(invite.body).toMatch(/<option value="admin" selected>/);

    const team = (
      await db.query<{ team_id: string }>('SELECT team_id FROM users WHERE email = $1', [email])
    )[0]?.team_id as string;
    // One address, not two: an invitation is mailed to one person.
    const two = await person.post('/app/settings/users', {
      _csrf,
      email: 'victim,attacker@evil.example',
      role: 'member',
    });
    expect(two.statusCode).toBe(400);
    expect(two.body).toContain('Enter a valid email');
    // A new invitation replaces the earlier one: only the latest address works.
    const first = await inviteUser(
      { db, clock, appUrl: '' },
      { teamId: team, email: 'twice@team.example', role: 'member' },
    );
    const second = await inviteUser(
      { db, clock, appUrl: '' },
      { teamId: team, email: 'twice@team.example', role: 'member' },
    );
    expect((await browser().get(first.path)).statusCode).toBe(404);
    expect((await browser().get(second.path)).statusCode).toBe(200);
    const room = (await admin.post(`/teams/${team}/deal-rooms`, { name: 'Form room' })).body.data
      .id as string;
    const link = await person.post(`/app/rooms/${room}/links`, {
      _csrf,
      name: '',
      expiresAt: 'next tuesday',
      requiresEmail: 'yes',
      watermark: 'yes',
      password: 'secret-not-echoed',
    });
    expect(link.statusCode).toBe(400);
    expect(link.body).toMatch(/<a href="#link-name">Give a name of 1 to 200 characters<\/a>/);
    expect(link.body).toMatch(/<a href="#link-expiry">Give the expiry as a date and time \(UTC\)<\/a>/);
    expect(link.body).toContain('value="next tuesday"');
    expect(link.body).toMatch(/id="watermark" name="watermark" type="checkbox" value="yes" checked/);
    expect(link.body).not.toContain('secret-not-echoed');
    expect((await db.query('SELECT 1 FROM links WHERE deal_room_id = $1', [room])).length).toBe(0);

    const key = await person.post('/app/settings/keys', { _csrf, name: ' ' });
    expect(key.statusCode).toBe(400);
    expect(key.body).toMatch(/<a href="#key-name">Give a name of 1 to 200 characters<\/a>/);
  });

  it('shows the audit log in words: subjects named and linked, values as people read them, filtered by person, action and day', async () => {
    const { person, email } = await member('owner');
    const _csrf = await person.csrf();
    const created = await person.post('/app/rooms', { _csrf, name: 'Audited <room>' });
    const roomId = /\/app\/rooms\/([0-9a-f-]{36})/.exec(String(created.headers.location))?.[1] as string;
    await person.post(`/app/rooms/${roomId}`, { _csrf, name: 'Renamed room', description: '' });
    await person.post('/app/settings/keys', { _csrf, name: 'CRM' });

    const all = await person.get('/app/settings/audit');
    expect(all.statusCode).toBe(200);
    expect(all.body).toContain(`Room <a href="/app/rooms/${roomId}">Renamed room</a>`);
    expect(all.body).toContain('<dt>Name</dt><dd>Audited &lt;room&gt; → Renamed room</dd>');
    expect(all.body).toContain('<td>Room created</td>');
    expect(all.body).toContain('<td>API key created</td>');

    const rooms = await person.get('/app/settings/audit?action=deal_room.created');
    expect(rooms.body).toContain('<td>Room created</td>');
    expect(rooms.body).not.toContain('<td>API key created</td>');
    expect(rooms.body).toMatch(/<option value="deal_room.created" selected>/);
    expect((await person.get(`/app/settings/audit?email=${encodeURIComponent(email)}`)).body).toContain(
      '<td>Room created</td>',
    );
    expect((await person.get('/app/settings/audit?email=nobody%40x.example')).body).toContain(
      'No changes match.',
    );
    const day = clock.now().toISOString().slice(0, 10);
    expect((await person.get(`/app/settings/audit?from=${day}&to=${day}`)).body).toContain(
      '<td>Room created</td>',
    );
    expect((await person.get('/app/settings/audit?to=2000-01-01')).body).toContain('No changes match.');
    const csv = await person.get('/app/settings/audit.csv?action=api_key.created');
    expect(csv.body.split('\r\n').filter(Boolean)).toHaveLength(2);
  });

  it('keeps every team to its own: another team’s room, document, link, viewer, key and endpoint are not found, read or changed', async () => {
    const ours = await member('owner');
    const theirs = await member('owner');
    const room = (await admin.post(`/teams/${theirs.team}/deal-rooms`, { name: 'Their secret room' })).body
      .data.id as string;
    const document = (
      await admin.post(`/deal-rooms/${room}/documents`, { name: 'Their deck', status: 'published' })
    ).body.data.id as string;
    const link = (await admin.post(`/deal-rooms/${room}/links`, { name: 'Their link' })).body.data
      .id as string;
    await admin.post(`/links/${link}/views`, {
      documentId: document,
      viewer: { email: 'their.viewer@x.example' },
    });
    const viewer = (
      await db.query<{ id: string }>('SELECT id FROM viewers WHERE deal_room_id = $1', [room])
    )[0]?.id as string;
    const key = (await admin.post(`/teams/${theirs.team}/keys`, { name: 'Theirs' })).body.data.id as string;
    const endpoint = (
      await admin.post(`/teams/${theirs.team}/webhook-endpoints`, { url: 'https://hooks.example/x' })
    ).body.data.id as string;

    for (const path of [
      `/app/rooms/${room}`,
      `/app/rooms/${room}/documents`,
      `/app/rooms/${room}/links`,
      `/app/rooms/${room}/viewers`,
      `/app/rooms/${room}/viewers.csv`,
      `/app/rooms/${room}/activity`,
      `/app/rooms/${room}/delete`,
      `/app/documents/${document}`,
      `/app/documents/${document}/pages.csv`,
      `/app/links/${link}`,
      `/app/viewers/${viewer}`,
      `/app/viewers/${viewer}/timeline.csv`,
      `/app/webhooks/${endpoint}`,
    ]) {
      const answer = await ours.person.get(path);
      expect(answer.statusCode, path).toBe(404);
      expect(answer.body, path).not.toMatch(/Their|their\.viewer/);
    }
    const csrf = await ours.person.csrf();
    for (const path of [
      `/app/rooms/${room}`,
      `/app/rooms/${room}/archive`,
      `/app/rooms/${room}/delete`,
      `/app/rooms/${room}/links`,
      `/app/documents/${document}/unpublish`,
      `/app/documents/${document}/delete`,
      `/app/links/${link}/deactivate`,
      `/app/links/${link}/delete`,
      `/app/keys/${key}/revoke`,
      `/app/webhooks/${endpoint}/delete`,
    ]) {
      const answer = await ours.person.post(path, { _csrf: csrf, name: 'Taken over' });
      expect(answer.statusCode, path).toBe(404);
    }
    // Nothing of theirs changed, and their lists do not reach our pages.
    const [roomRow] = await db.query<{ name: string; status: string }>(
      'SELECT name, status FROM deal_rooms WHERE id = $1',
      [room],
    );
    expect(roomRow).toEqual({ name: 'Their secret room', status: 'active' });
    expect((await db.query('SELECT 1 FROM links WHERE id = $1 AND enabled', [link])).length).toBe(1);
    expect(
      (await db.query('SELECT 1 FROM api_keys WHERE id = $1 AND revoked_at IS NULL', [key])).length,
    ).toBe(1);
    for (const path of [
      '/app/rooms',
      '/app/rooms.csv',
      '/app/settings/keys',
      '/app/settings/webhooks',
      '/app/settings/audit',
    ]) {
      const answer = await ours.person.get(path);
      expect(answer.statusCode, path).toBe(200);
      expect(answer.body, path).not.toMatch(/Their|hooks\.example/);
    }
  });

  it('runs each change through the domain function, with its event and its audit entry in one transaction', async () => {
    const owner = await member('owner');
    const csrf = await owner.person.csrf();
    const before = (await recordedEvents(db)).length;
    const created = await owner.person.post('/app/rooms', { _csrf: csrf, name: 'Audited <room>' });
    expect(created.statusCode).toBe(303);
    const roomId = /\/app\/rooms\/([0-9a-f-]{36})\//.exec(created.headers.location as string)?.[1] as string;
    const events = (await recordedEvents(db)).slice(before);
    expect(events.map((e) => e.type)).toEqual(['deal_room.created']);
    const audit = await db.query<{
      action: string;
      user_email: string;
      subject_id: string;
      after: { name: string };
    }>('SELECT action, user_email, subject_id, after FROM audit_log WHERE team_id = $1 ORDER BY at', [
      owner.team,
    ]);
    expect(audit.map((a) => [a.action, a.user_email, a.subject_id, a.after?.name])).toEqual([
      ['deal_room.created', owner.email, roomId, 'Audited <room>'],
    ]);
    // A refused change writes neither an event nor an audit entry.
    const refused = await owner.person.post(`/app/rooms/${roomId}`, { _csrf: csrf, name: '' });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('Give a name of 1 to 200 characters');
    const nul = await owner.person.post(`/app/rooms/${roomId}`, { _csrf: csrf, name: 'bad\u0000name' });
    expect(nul.statusCode).toBe(400);
    expect((await recordedEvents(db)).slice(before)).toHaveLength(1);
    expect((await db.query('SELECT 1 FROM audit_log WHERE team_id = $1', [owner.team])).length).toBe(1);
    // A key made in the dashboard is in the log without its secret.
    const key = await owner.person.post('/app/settings/keys', { _csrf: csrf, name: 'CRM' });
    expect(key.statusCode).toBe(201);
    const plain = /id="shown-once">([^<]+)</.exec(key.body)?.[1] as string;
    expect(plain).toMatch(/^dr_live_/);
    const logged = await db.query<{ after: unknown }>(
      "SELECT after FROM audit_log WHERE team_id = $1 AND action = 'api_key.created'",
      [owner.team],
    );
    expect(JSON.stringify(logged)).not.toContain(plain);
    const csv = await owner.person.get('/app/settings/audit.csv');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[0]).toBe(
      'at,userEmail,action,subjectType,subjectId,subjectName,before,after',
    );
    expect(csv.body).toContain('deal_room.created');
  });

  it('uploads a file with the room’s document (a refused or forged upload leaves nothing), and makes a link showing one document without downloads', async () => {
    const owner = await member('owner');
    const csrf = await owner.person.csrf();
    const created = await owner.person.post('/app/rooms', { _csrf: csrf, name: 'Upload room' });
    const roomId = /\/app\/rooms\/([0-9a-f-]{36})\//.exec(created.headers.location as string)?.[1] as string;
    const upload = async (
      bytes: Uint8Array,
      name: string,
      token = csrf,
      url = `/app/rooms/${roomId}/documents`,
    ) => {
      const boundary = '----dashboard-test';
      const body = Buffer.concat([
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${token}\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="publish"\r\n\r\nyes\r\n` +
            `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
        Buffer.from(bytes),
        Buffer.from(`\r\n--${boundary}--\r\n`),
      ]);
      return web.inject({
        method: 'POST',
        url,
        remoteAddress: '203.0.113.9',
        headers: {
          cookie: [...owner.person.jar].map(([k, v]) => `${k}=${v}`).join('; '),
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
        payload: body,
      });
    };
    expect((await upload(Buffer.from('just some text'), 'notes.txt')).statusCode).toBe(415);
    expect((await upload(await numberedPdf(3), 'deck.pdf', 'forged')).statusCode).toBe(403);
    expect((await db.query('SELECT 1 FROM documents WHERE deal_room_id = $1', [roomId])).length).toBe(0);
    expect((await upload(await numberedPdf(3), 'Deck.pdf')).statusCode).toBe(303);
    expect((await upload(await numberedPdf(1), 'Terms.pdf')).statusCode).toBe(303);
    const documents = await db.query<{ id: string; name: string; page_count: number; status: string }>(
      'SELECT id, name, page_count, status FROM documents WHERE deal_room_id = $1 ORDER BY name',
      [roomId],
    );
    expect(documents.map((d) => [d.name, d.page_count, d.status])).toEqual([
      ['Deck.pdf', 3, 'published'],
      ['Terms.pdf', 1, 'published'],
    ]);
    const deck = documents[0]?.id as string;
    const link = await owner.person.post(`/app/rooms/${roomId}/links`, {
      _csrf: csrf,
      name: 'Board',
      requiresEmail: 'yes',
      password: 'board-secret',
      documentsMode: 'chosen',
      documentIds: [deck],
      expiresAt: '2026-12-31T18:00',
    });
    expect(link.statusCode).toBe(303);
    const linkId = /\/app\/links\/([0-9a-f-]{36})/.exec(link.headers.location as string)?.[1] as string;
    const [stored] = await db.query<Record<string, unknown>>(
      `SELECT name, requires_email, password_hash IS NOT NULL AS has_password, allow_download, all_documents, expires_at,
              (SELECT array_agg(document_id::text) FROM link_documents WHERE link_id = l.id) AS documents
         FROM links l WHERE id = $1`,
      [linkId],
    );
    expect(stored).toEqual({
      name: 'Board',
      requires_email: true,
      has_password: true,
      allow_download: false,
      all_documents: false,
      expires_at: new Date('2026-12-31T18:00:00.000Z'),
      documents: [deck],
    });
    const page = await owner.person.get(link.headers.location as string);
    expect(page.body).not.toContain('board-secret');
    expect(page.body).toContain('/v/');

    // Replace file: a second version; the first and what was read of it stay on the document's page.
    const replace = `/app/documents/${deck}/file`;
    expect((await upload(Buffer.from('still not a pdf'), 'x.txt', csrf, replace)).statusCode).toBe(415);
    expect((await upload(await numberedPdf(2), 'v2.pdf', 'forged', replace)).statusCode).toBe(403);
    const replaced = await upload(await numberedPdf(2), 'v2.pdf', csrf, replace);
    expect(replaced.statusCode).toBe(303);
    expect(replaced.headers.location).toBe(`/app/documents/${deck}?done=replaced`);
    const documentPage = await owner.person.get(`/app/documents/${deck}`);
    expect(documentPage.body).toContain('Version 2, uploaded');
    expect(documentPage.body).toContain('Version 1 (uploaded');
    expect(documentPage.body).toContain('Replace file');
    const [after] = await db.query<{ page_count: number; versions: number }>(
      `SELECT page_count, (SELECT count(*)::int FROM document_versions WHERE document_id = d.id) AS versions
         FROM documents d WHERE id = $1`,
      [deck],
    );
    expect(after).toEqual({ page_count: 2, versions: 2 });
  });

  it('signs in with one message for a wrong email or password, throttles the 11th failure, and ends sessions on sign-out and password change', async () => {
    const owner = await member('owner');
    const stranger = browser('198.51.100.77');
    const login = async (email: string, password: string) => {
      const form = await stranger.get('/login');
      const token = /name="_form" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
      return stranger.post('/login', { _form: token, email, password, next: '/app/rooms' });
    };
    const wrongPassword = await login(owner.email, 'not the password');
    const wrongEmail = await login('nobody@team.example', 'not the password');
    expect([wrongPassword.statusCode, wrongEmail.statusCode]).toEqual([401, 401]);
    expect(wrongPassword.body).toContain('Incorrect email or password');
    expect(wrongEmail.body).toContain('Incorrect email or password');
    // 10 failures for this account from this address (the wrong email counts for the address only).
    for (let i = 0; i < 9; i++) expect((await login(owner.email, `wrong ${i}`)).statusCode).toBe(401);
    const throttled = await login(owner.email, PASSWORD);
    expect(throttled.statusCode).toBe(429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    clock.advance(16 * 60_000);
    const signedIn = await login(owner.email, PASSWORD);
    expect(signedIn.statusCode).toBe(303);
    expect((await stranger.get('/app/rooms')).statusCode).toBe(200);

    // The first browser changes the password: the other session ends, this one stays.
    const csrf = await owner.person.csrf();
    const changed = await owner.person.post('/app/account/password', {
      _csrf: csrf,
      current: PASSWORD,
      password: 'an even longer password',
      confirm: 'an even longer password',
    });
    expect(changed.statusCode).toBe(303);
    expect((await stranger.get('/app/rooms')).statusCode).toBe(303);
    expect((await owner.person.get('/app/rooms')).statusCode).toBe(200);
    expect((await owner.person.post('/logout', { _csrf: csrf })).statusCode).toBe(303);
    expect((await owner.person.get('/app/rooms')).headers.location).toBe('/login?next=%2Fapp%2Frooms');
    // The invitation was single use.
    expect((await browser().get(owner.invitation.path)).statusCode).toBe(404);
  });

  it('counts a burst of sign-ins sent at once before any password is checked, and never locks the account for another address', async () => {
    const owner = await member('owner');
    const attacker = browser('198.51.100.201');
    const page = await attacker.get('/login');
    const token = /name="_form" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        attacker.post('/login', {
          _form: token,
          email: owner.email,
          password: `wrong ${i}`,
          next: '/app/rooms',
        }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(30);
    // The owner, from their own address, signs in all the same.
    const own = browser('192.0.2.55');
    const form = await own.get('/login');
    const ownToken = /name="_form" value="([^"]+)"/.exec(form.body)?.[1] ?? '';
    const signedIn = await own.post('/login', {
      _form: ownToken,
      email: owner.email,
      password: PASSWORD,
      next: '/app/rooms',
    });
    expect(signedIn.statusCode).toBe(303);
  });

  it('finds viewers by the start of their email, whatever its case, and shows one viewer’s timeline newest first', async () => {
    const owner = await member('owner');
    const room = (await admin.post(`/teams/${owner.team}/deal-rooms`, { name: 'Search room' })).body.data
      .id as string;
    const document = (
      await admin.post(`/deal-rooms/${room}/documents`, { name: 'Deck', status: 'published' })
    ).body.data.id as string;
    const link = (await admin.post(`/deal-rooms/${room}/links`, { name: 'Investors' })).body.data
      .id as string;
    for (const email of ['ada@harbor.example', 'bob@Harbor.example', 'adam_x@other.example']) {
      clock.advance(60_000);
      await admin.post(`/links/${link}/visits`, { viewer: { email } });
      clock.advance(1000);
      await admin.post(`/links/${link}/views`, { documentId: document, viewer: { email } });
    }
    const names = async (q: string) => {
      const page = await owner.person.get(`/app/rooms/${room}/viewers?q=${encodeURIComponent(q)}`);
      expect(page.statusCode).toBe(200);
      return [...page.body.matchAll(/<a href="\/app\/viewers\/[0-9a-f-]{36}">([^<]+)<\/a>/g)].map(
        (m) => m[1],
      );
    };
    expect(await names('')).toEqual(['adam_x@other.example', 'bob@harbor.example', 'ada@harbor.example']);
    expect(await names('ada')).toEqual(['adam_x@other.example', 'ada@harbor.example']);
    expect(await names('BOB@')).toEqual(['bob@harbor.example']);
    expect(await names('ada_')).toEqual([]);
    expect(await names('%')).toEqual([]);
    // The overview's live feed: the last hour's visits and views, newest first.
    const live = await owner.person.get(`/app/rooms/${room}/activity`);
    const feed = (JSON.parse(live.body) as { data: { kind: string; who: string; what: string }[] }).data;
    expect(feed.slice(0, 2)).toEqual([
      {
        kind: 'view',
        at: expect.any(String),
        time: expect.any(String),
        who: 'adam_x@other.example',
        what: 'Deck',
      },
      {
        kind: 'visit',
        at: expect.any(String),
        time: expect.any(String),
        who: 'adam_x@other.example',
        what: 'Investors',
      },
    ]);
    expect(feed).toHaveLength(6);
    clock.advance(3_601_000);
    expect(JSON.parse((await owner.person.get(`/app/rooms/${room}/activity`)).body)).toEqual({ data: [] });
    const viewer = (
      await db.query<{ id: string }>(
        "SELECT id FROM viewers WHERE deal_room_id = $1 AND email = 'ada@harbor.example'",
        [room],
      )
    )[0]?.id;
    const timeline = await owner.person.get(`/app/viewers/${viewer}`);
    expect(timeline.body.indexOf('Viewing')).toBeLessThan(timeline.body.indexOf('Opened the link'));
    const csv = await owner.person.get(`/app/viewers/${viewer}/timeline.csv`);
    expect(
      csv.body
        .split('\r\n')
        .slice(1, 3)
        .map((line) => line.split(',')[1]),
    ).toEqual(['view', 'visit']);
  });

  it('mails an invitation made in the dashboard through the SMTP server, with the address shown on the page', async () => {
    const owner = await member('owner');
    const csrf = await owner.person.csrf();
    const invited = await owner.person.post('/app/settings/users', {
      _csrf: csrf,
      email: 'Nina@Team.example',
      role: 'admin',
    });
    expect(invited.statusCode).toBe(201);
    const address = /id="shown-once">([^<]+)</.exec(invited.body)?.[1] as string;
    expect(address).toMatch(/^http:\/\/localhost:3000\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(invited.body).toContain('It was also mailed to nina@team.example.');
    await until(() => smtp.received.some((m) => m.to.includes('nina@team.example')), 'the invitation mail');
    const mail = smtp.received.find((m) => m.to.includes('nina@team.example'));
    expect(mail?.from).toBe('rooms@dealroom.example');
    expect(mail?.raw).toContain('Subject: You are invited to Dashboard team on Deal Room');
    expect(mail?.raw.replace(/=\r\n/g, '')).toContain(address);
    const audit = await db.query<{ action: string; after: { email: string; role: string } }>(
      "SELECT action, after FROM audit_log WHERE team_id = $1 AND action = 'user.invited'",
      [owner.team],
    );
    expect(audit.map((a) => [a.after.email, a.after.role])).toEqual([['nina@team.example', 'admin']]);
  });

  it('lets admins change but not manage users, and members only read and export', async () => {
    const owner = await member('owner');
    const adminUser = await member('admin', owner.team);
    const reader = await member('member', owner.team);
    const adminToken = await adminUser.person.csrf();
    expect(
      (await adminUser.person.post('/app/rooms', { _csrf: adminToken, name: 'Admin room' })).statusCode,
    ).toBe(303);
    expect((await adminUser.person.get('/app/settings/users')).statusCode).toBe(403);
    expect(
      (
        await adminUser.person.post('/app/settings/users', {
          _csrf: adminToken,
          email: 'x@y.example',
          role: 'owner',
        })
      ).statusCode,
    ).toBe(403);
    const readerToken = await reader.person.csrf();
    const rooms = await reader.person.get('/app/rooms');
    expect(rooms.statusCode).toBe(200);
    expect(rooms.body).toContain('Admin room');
    expect(rooms.body).not.toContain('Create room');
    expect((await reader.person.get('/app/rooms.csv')).statusCode).toBe(200);
    expect(
      (await reader.person.post('/app/rooms', { _csrf: readerToken, name: 'Member room' })).statusCode,
    ).toBe(403);
    // A team keeps an owner: the only owner cannot be demoted.
    const ownerToken = await owner.person.csrf();
    const users = await db.query<{ id: string; email: string }>(
      'SELECT id, email FROM users WHERE team_id = $1',
      [owner.team],
    );
    const self = users.find((u) => u.email === owner.email)?.id as string;
    const readerId = users.find((u) => u.email === reader.email)?.id as string;
    expect(
      (await owner.person.post(`/app/users/${readerId}/role`, { _csrf: ownerToken, role: 'admin' }))
        .statusCode,
    ).toBe(303);
    expect((await owner.person.post(`/app/users/${self}/remove`, { _csrf: ownerToken })).statusCode).toBe(
      409,
    );
    expect((await owner.person.post(`/app/users/${readerId}/remove`, { _csrf: ownerToken })).statusCode).toBe(
      303,
    );
    expect((await reader.person.get('/app/rooms')).statusCode).toBe(303);
  });

  it('answers the pages every signed-in user reaches with the section 7 headers, and a clean page for odd input', async () => {
    const owner = await member('owner');
    for (const path of [
      '/app/rooms',
      '/app/settings/keys',
      '/app/settings/webhooks',
      '/app/settings/users',
      '/app/settings/audit',
      '/app/account',
      '/login',
    ]) {
      const answer = await owner.person.get(path);
      expect([200, 303], path).toContain(answer.statusCode);
      expect(answer.headers['content-security-policy'], path).toMatch(
        /script-src 'self'.*frame-ancestors 'none'/,
      );
      expect(answer.headers['x-robots-tag'], path).toContain('noindex');
      expect(answer.headers['referrer-policy'], path).toBe('no-referrer');
      expect(answer.headers['x-content-type-options'], path).toBe('nosniff');
      expect(answer.headers['x-request-id'], path).toBeDefined();
    }
    for (const path of [
      '/app/rooms/not-a-uuid',
      '/app/rooms/%00',
      '/app/documents/123',
      '/app/rooms?page=-1&status=nope&q=%F0%9F%98%80',
      '/invite/short',
      '/login?next=//evil.example',
    ]) {
      const answer = await owner.person.get(path);
      expect(answer.statusCode, path).toBeLessThan(500);
      if (answer.statusCode === 303) expect(answer.headers.location, path).toMatch(/^\/(?!\/)/);
      else expect(answer.headers['content-type'], path).toContain('text/html');
    }
    const csrf = await owner.person.csrf();
    const bad = await owner.person.post('/app/rooms', { _csrf: csrf, name: 'x'.repeat(500) });
    expect(bad.statusCode).toBe(400);
  });

  it("keeps the team's timezone and internal domains; shows times in the zone, named; reads a link's expiry in it", async () => {
    const { person, team } = await member('owner');
    const _csrf = await person.csrf();
    const bad = await person.post('/app/settings/team', {
      _csrf,
      timezone: 'Mars/Olympus_Mons',
      internalDomains: '@team.example\nnot a domain',
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('There is a problem');
    expect(bad.body).toContain('href="#team-timezone"');
    expect(bad.body).toContain('Line 2 is not an @domain');
    expect(bad.body).toContain('not a domain</textarea>');
    const saved = await person.post('/app/settings/team', {
      _csrf,
      timezone: 'America/New_York',
      internalDomains: '@Team.example\n@bücher.example',
    });
    expect(saved.statusCode).toBe(303);
    const page = await person.get('/app/settings/team');
    expect(page.body).toContain('<option selected>America/New_York</option>');
    expect(page.body).toContain('@team.example\n@bücher.example</textarea>');
    const [row] = await db.query<{ timezone: string; internal_domains: string[] }>(
      'SELECT timezone, internal_domains FROM teams WHERE id = $1',
      [team],
    );
    expect(row).toEqual({
      timezone: 'America/New_York',
      internal_domains: ['@team.example', '@xn--bcher-kva.example'],
    });
    const audit = await person.get('/app/settings/audit');
    expect(audit.body).toContain('Timezone');

    // A link's expiry typed as 18:00 in New York is 23:00 UTC; the page shows it in the zone, named.
    const roomId = (await admin.post(`/teams/${team}/deal-rooms`, { name: 'Zones' })).body.data.id as string;
    const made = await person.post(`/app/rooms/${roomId}/links`, {
      _csrf,
      name: 'Evening',
      documentsMode: 'all',
      expiresAt: '2026-12-01T18:00',
      allowList: '@Buyer.example\nanna@bücher.example',
      blockList: '',
      agreement: '',
    });
    expect(made.statusCode).toBe(303);
    const [link] = await db.query<{
      id: string;
      expires_at: Date;
      allow_list: string[];
      agreement: string | null;
    }>('SELECT id, expires_at, allow_list, agreement FROM links WHERE deal_room_id = $1', [roomId]);
    expect(link?.expires_at.toISOString()).toBe('2026-12-01T23:00:00.000Z');
    expect(link?.allow_list).toEqual(['@buyer.example', 'anna@xn--bcher-kva.example']);
    expect(link?.agreement).toBeNull();
    const shown = await person.get(`/app/links/${link?.id}`);
    expect(shown.body).toContain('Expires 2026-12-01 18:00 EST');
    expect(shown.body).toContain('Expires (America/New_York)');
    expect(shown.body).toContain('value="2026-12-01T18:00"');
    expect(shown.body).toContain('anna@bücher.example</textarea>');
    const wrongList = await person.post(`/app/links/${link?.id}`, {
      _csrf,
      name: 'Evening',
      documentsMode: 'all',
      allowList: '@buyer.example\nnobody',
      verifyEmail: 'yes',
    });
    expect(wrongList.statusCode).toBe(400);
    expect(wrongList.body).toContain('Line 2 is not an email or @domain: nobody');

    // A person may read in a zone of their own.
    expect((await person.post('/app/account/timezone', { _csrf, timezone: 'Europe/Paris' })).statusCode).toBe(
      303,
    );
    expect((await person.get(`/app/links/${link?.id}`)).body).toContain('Expires 2026-12-02 00:00 GMT+1');
    expect((await person.post('/app/account/timezone', { _csrf, timezone: '' })).statusCode).toBe(303);
    expect((await person.get(`/app/links/${link?.id}`)).body).toContain('Expires 2026-12-01 18:00 EST');
  });

  it("counts the room's days from midnight in the team's timezone; the read API keeps UTC days", async () => {
    const { person, team } = await member('owner');
    await admin.patch(`/teams/${team}`, { timezone: 'America/New_York' });
    const roomId = (await admin.post(`/teams/${team}/deal-rooms`, { name: 'Night reading' })).body.data
      .id as string;
    const documentId = (
      await admin.post(`/deal-rooms/${roomId}/documents`, { name: 'CIM', status: 'published' })
    ).body.data.id as string;
    const linkId = (await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Buyers' })).body.data
      .id as string;
    const now = clock.now();
    const today = now.toISOString().slice(0, 10);
    // 03:30 UTC today is 23:30 yesterday in New York (EDT); 05:00 UTC is 01:00 today there.
    expect(
      (
        await admin.post(`/links/${linkId}/visits`, {
          viewer: { email: 'late@buyer.example' },
          at: `${today}T03:30:00.000Z`,
        })
      ).status,
    ).toBe(201);
    for (const [startedAt, email] of [
      [`${today}T03:30:00.000Z`, 'late@buyer.example'],
      [`${today}T05:00:00.000Z`, 'early@buyer.example'],
      [`${today}T05:10:00.000Z`, 'early@buyer.example'],
    ] as const) {
      expect(
        (await admin.post(`/links/${linkId}/views`, { documentId, viewer: { email }, startedAt })).status,
      ).toBe(201);
    }
    const yesterday = new Date(Date.parse(`${today}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    const page = (await person.get(`/app/rooms/${roomId}?period=7d`)).body;
    expect(page).toContain('Days from midnight, America/New_York.');
    expect(page).toContain(`<tr><td>${yesterday}</td><td class="num">1</td><td class="num">1</td></tr>`);
    expect(page).toContain(`<tr><td>${today}</td><td class="num">0</td><td class="num">2</td></tr>`);
    expect(page).toMatch(/Unique viewers<\/[^>]+>\s*<[^>]+>2</);
    const utc = await getAnalytics(db, team, roomId, '7d', clock.now());
    expect(utc.viewsOverTime.find((d) => d.date === today)?.views).toBe(3);
    expect(utc.viewsOverTime.find((d) => d.date === yesterday)?.views).toBe(0);
    expect(utc.topLinks).toEqual([{ linkId, name: 'Buyers', clicks: 1 }]);
    // In the team's own zone the rooms list counts the same 30 days.
    expect((await person.get('/app/rooms')).body).toMatch(/Night reading[\s\S]*?<td class="num">3<\/td>/);
  });

  it('follows the rooms a user creates; Follow and Unfollow; the choice of visit emails; the Notifications page', async () => {
    const { person, team } = await member('owner');
    const _csrf = await person.csrf();
    const created = await person.post('/app/rooms', { _csrf, name: 'Followed room' });
    expect(created.statusCode).toBe(303);
    const roomId = /\/app\/rooms\/([0-9a-f-]{36})/.exec(String(created.headers.location))?.[1] as string;
    expect((await person.get(`/app/rooms/${roomId}`)).body).toContain('>Unfollow</button>');
    expect((await person.post(`/app/rooms/${roomId}/unfollow`, { _csrf })).statusCode).toBe(303);
    expect((await person.get(`/app/rooms/${roomId}`)).body).toContain('>Follow</button>');
    expect((await person.post(`/app/rooms/${roomId}/follow`, { _csrf })).statusCode).toBe(303);

    const account = await person.get('/app/account');
    expect(account.body).toContain('<legend>Visit emails</legend>');
    expect(account.body).toMatch(/value="instant" checked/);
    for (const label of ['Instant', 'Daily digest', 'Off'])
      expect(account.body).toContain(`>${label}</label>`);
    expect(
      (await person.post('/app/account/notifications', { _csrf, visitEmails: 'digest', digestHour: '7' }))
        .statusCode,
    ).toBe(303);
    expect((await person.get('/app/account')).body).toMatch(/value="digest" checked/);
    expect(
      (await person.post('/app/account/notifications', { _csrf, visitEmails: 'instant', digestHour: '7' }))
        .statusCode,
    ).toBe(303);

    // A visit through a link of the room: due in 3 minutes, listed once sent (or kept).
    const link = (await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Buyers' })).body.data.id as string;
    await admin.post(`/links/${link}/visits`, { viewer: { email: 'told@buyer.example' } });
    const due = await person.get('/app/notifications');
    expect(due.body).toContain('A visit to Followed room');
    expect(due.body).toContain('Due');
    expect(team).toBeTruthy();
  });
});

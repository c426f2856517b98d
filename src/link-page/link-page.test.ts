import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { renderNext } from '../documents/renderer.ts';
import { sharedFileWork } from '../rendering/pool.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { testWebApp } from '../testing/app.ts';
import { linkVisitor } from '../testing/link-visitor.ts';
import { managementClient, putFile, recordedEvents } from '../testing/management.ts';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { completeSilentViews } from '../tracking/reading.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';

const MINUTE = 60_000;

describe.each(storeKinds())('the link page (%s store)', (kind) => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  const startView = createViewStartWriter();
  /** The versions a viewer was told to wait for, as the renderer would hear of them. */
  const wanted: string[] = [];

  beforeAll(async () => {
    db = await openTestStore(kind);
    admin = await managementClient(db, clock, createMetrics(), { startView });
    web = await testWebApp(db, clock, { startView, wantPages: (versionId) => wanted.push(versionId) });
  });
  afterAll(async () => {
    await web?.close();
    await admin?.app.close();
    await db?.close();
  });

  const visitor = (address?: string) => linkVisitor(web, address);

  /**
   * Draws the pages of these documents, as the running service's renderer does in the
   * background; the files other tests uploaded wait (claimed for ever, then let go).
   */
  async function render(...documentIds: string[]) {
    await db.query(
      `UPDATE document_versions SET render_claimed_until = 'infinity'
        WHERE pages_ready < page_count AND render_claimed_until IS NULL AND NOT (document_id = ANY ($1::uuid[]))`,
      [documentIds],
    );
    while (await renderNext({ db, work: sharedFileWork(), clock })) {}
    await db.query(
      `UPDATE document_versions SET render_claimed_until = NULL WHERE render_claimed_until = 'infinity'`,
    );
  }

  let rooms = 0;
  /** A team, a room, three documents (a 3-page PDF, a draft, one without a file) and a link. */
  async function room(link: Record<string, unknown> = {}) {
    clock.advance(MINUTE);
    const teamId = (await admin.post('/teams', { name: 'Link page' })).body.data.id as string;
    const roomId = (await admin.post(`/teams/${teamId}/deal-rooms`, { name: `Room <${++rooms}> & "Co"` }))
      .body.data.id as string;
    const doc = async (body: Record<string, unknown>) =>
      (await admin.post(`/deal-rooms/${roomId}/documents`, body)).body.data.id as string;
    const deck = await doc({
      name: 'deck.pdf',
      displayName: 'Pitch <deck>',
      status: 'published',
      position: 2,
    });
    const draft = await doc({ name: 'draft.pdf', status: 'draft', position: 1 });
    const empty = await doc({ name: 'Notes', status: 'published', position: 3 });
    for (const id of [deck, draft]) {
      const put = await putFile(admin, id, await numberedPdf(3), 'application/pdf');
      expect(put.statusCode).toBe(200);
    }
    const created = await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Investors', ...link });
    expect(created.status).toBe(201);
    const { id: linkId, shortId } = created.body.data as { id: string; shortId: string };
    return { teamId, roomId, linkId, shortId, deck, draft, empty };
  }

  it('answers 404 for an unknown link and 410 for a disabled or expired one, as pages with the security headers', async () => {
    const unknown = await visitor().get('/v/no-such-link');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(unknown.body).toContain('This link does not exist');
    for (const header of [
      'x-request-id',
      'content-security-policy',
      'referrer-policy',
      'x-robots-tag',
      'x-content-type-options',
    ]) {
      expect(unknown.headers[header], header).toBeDefined();
    }
    expect(unknown.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(unknown.headers['content-security-policy']).toContain("script-src 'self'");
    expect(unknown.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(unknown.headers['referrer-policy']).toBe('no-referrer');
    expect(unknown.headers['x-robots-tag']).toContain('noindex');

    const { linkId, shortId } = await room();
    expect((await admin.post(`/links/${linkId}/deactivate`)).status).toBe(200);
    const off = await visitor().get(`/v/${shortId}`);
    expect(off.statusCode).toBe(410);
    expect(off.body).toContain('This link is no longer active');

    const expiring = await room({ expiresAt: new Date(clock.now().getTime() + 10 * MINUTE).toISOString() });
    expect((await visitor().get(`/v/${expiring.shortId}`)).statusCode).toBe(200);
    clock.advance(10 * MINUTE);
    expect((await visitor().get(`/v/${expiring.shortId}`)).statusCode).toBe(410);
    expect((await visitor().get(`/v/${expiring.shortId}/d/${expiring.deck}`)).statusCode).toBe(410);
  });

  it('gates a link with an email and a password: 400s naming the field, 401, then the room and one visit', async () => {
    const { teamId, shortId, deck, empty, roomId } = await room({
      requiresEmail: true,
      password: 'open sesame',
    });
    const ana = visitor();
    const gate = await ana.get(`/v/${shortId}`);
    expect(gate.statusCode).toBe(200);
    for (const label of [
      '<label for="email">Email</label>',
      '<label for="name">Name</label>',
      '<label for="password">Password</label>',
    ]) {
      expect(gate.body).toContain(label);
    }
    expect(gate.body).toMatch(/<button type="submit" class="primary">Continue<\/button>/);
    expect(gate.body).not.toContain(roomId);
    expect(gate.body).not.toContain(teamId);
    expect(gate.body).toContain('Room &lt;');
    const token = await ana.token(shortId);

    const badEmail = await ana.post(`/v/${shortId}`, {
      token,
      email: 'not-an-email',
      password: 'open sesame',
    });
    expect(badEmail.statusCode).toBe(400);
    expect(badEmail.body).toContain('Enter a valid email');
    const noPassword = await ana.post(`/v/${shortId}`, { token, email: 'ana@example.com' });
    expect(noPassword.statusCode).toBe(400);
    expect(noPassword.body).toContain('Enter the password');
    const wrong = await ana.post(`/v/${shortId}`, { token, email: 'ana@example.com', password: 'nope' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('Incorrect password');
    // Nothing is open before the gate is passed: not the viewer, not the file.
    expect((await ana.get(`/v/${shortId}/d/${deck}`)).statusCode).toBe(404);
    const file = await ana.get(`/v/${shortId}/d/${deck}/file`);
    expect(file.statusCode).toBe(404);
    expect(file.headers['content-type']).toBe('text/html; charset=utf-8');

    const passed = await ana.post(`/v/${shortId}`, {
      token,
      email: ' Ana@Example.com ',
      name: 'Ana <Lima>',
      password: 'open sesame',
    });
    expect(passed.statusCode).toBe(303);
    expect(passed.headers.location).toBe(`/v/${shortId}`);
    const cookies = String(passed.headers['set-cookie']);
    expect(cookies).toContain('HttpOnly');
    expect(cookies).toContain('SameSite=Lax');
    expect(cookies).toContain(`Path=/v/${shortId}`);

    const page = await ana.get(`/v/${shortId}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/<h1>Room &lt;\d+&gt; &amp; &quot;Co&quot;<\/h1>/);
    // Published documents only, in sidebar order, named by displayName ?? name.
    const titles = [...page.body.matchAll(/class="doc-title">([^<]*)</g)].map((m) => m[1]);
    expect(titles).toEqual(['Pitch &lt;deck&gt;', 'Notes']);
    expect(page.body).toContain(`/v/${shortId}/d/${deck}`);
    expect(page.body).toContain(`/v/${shortId}/d/${empty}`);
    expect(page.body).not.toContain(roomId);

    // One visit for passing the gate; coming back within 30 minutes is the same visit, after is another.
    const visits = async () =>
      (
        await db.query<{ n: number }>('SELECT count(*)::int AS n FROM visits WHERE deal_room_id = $1', [
          roomId,
        ])
      )[0]?.n;
    expect(await visits()).toBe(1);
    clock.advance(29 * MINUTE);
    await ana.get(`/v/${shortId}`);
    expect(await visits()).toBe(1);
    clock.advance(30 * MINUTE);
    await ana.get(`/v/${shortId}`);
    expect(await visits()).toBe(2);
    const viewers = await db.query<{ email: string }>('SELECT email FROM viewers WHERE deal_room_id = $1', [
      roomId,
    ]);
    expect(viewers).toEqual([{ email: 'ana@example.com' }]);
  });

  it('throttles wrong passwords per link and address: the 6th attempt after 5 in 15 minutes is a 429 with Retry-After', async () => {
    const { shortId } = await room({ password: 'right one' });
    const guesser = visitor('203.0.113.50');
    const token = await guesser.token(shortId);
    for (let i = 0; i < 5; i++) {
      expect((await guesser.post(`/v/${shortId}`, { token, password: `guess ${i}` })).statusCode).toBe(401);
    }
    clock.advance(MINUTE);
    const held = await guesser.post(`/v/${shortId}`, { token, password: 'right one' });
    expect(held.statusCode).toBe(429);
    expect(Number(held.headers['retry-after'])).toBe(14 * 60);
    expect(held.body).toContain('Too many');
    // Another address is not held back.
    const other = visitor('203.0.113.51');
    expect(
      (await other.post(`/v/${shortId}`, { token: await other.token(shortId), password: 'right one' }))
        .statusCode,
    ).toBe(303);
    clock.advance(14 * MINUTE);
    expect((await guesser.post(`/v/${shortId}`, { token, password: 'right one' })).statusCode).toBe(303);
  });

  it('counts 60 wrong passwords sent at once one by one: 5 are 401, the rest 429, and a right one after is throttled too', async () => {
    const { shortId } = await room({ password: 'a long link password' });
    const burst = visitor('198.51.100.99');
    const token = await burst.token(shortId);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => burst.post(`/v/${shortId}`, { token, password: `wrong ${i}` })),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
    // Another address is not held back by them.
    const other = visitor('198.51.100.100');
    const passed = await other.post(`/v/${shortId}`, {
      token: await other.token(shortId),
      password: 'a long link password',
    });
    expect(passed.statusCode).toBe(303);
  });

  it('refuses a gate form without its token (another site cannot post it), or sent more than 2 hours after it was shown', async () => {
    const { shortId } = await room({ requiresEmail: true });
    const response = await visitor().post(`/v/${shortId}`, { email: 'eve@example.com' });
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('This form has expired');
    const late = visitor();
    const token = await late.token(shortId);
    clock.advance(2 * 60 * MINUTE + 1000);
    const stale = await late.post(`/v/${shortId}`, { token, email: 'late@example.com' });
    expect(stale.statusCode).toBe(400);
    expect(stale.body).toContain('This form has expired');
    expect(
      (await late.post(`/v/${shortId}`, { token: await late.token(shortId), email: 'late@example.com' }))
        .statusCode,
    ).toBe(303);
  });

  it('opens an ungated link with one visit, and a view per document opened, its reports growing the duration and the pages', async () => {
    const { teamId, roomId, linkId, shortId, deck, draft } = await room();
    const bo = visitor();
    const page = await bo.get(`/v/${shortId}`);
    expect(page.statusCode).toBe(200);
    expect(bo.jar.get('dr_visitor')).toMatch(/^[0-9a-f-]{36}$/);

    expect((await bo.get(`/v/${shortId}/d/${draft}`)).statusCode).toBe(404);
    expect((await bo.get(`/v/${shortId}/d/00000000-0000-4000-8000-000000000000`)).statusCode).toBe(404);
    expect((await bo.get(`/v/${shortId}/d/not-an-id`)).statusCode).toBe(404);
    const viewer = await bo.get(`/v/${shortId}/d/${deck}`);
    expect(viewer.statusCode).toBe(200);
    expect([...viewer.body.matchAll(/data-page="(\d+)"/g)].map((m) => m[1])).toEqual(['1', '2', '3']);
    expect(viewer.body).toContain('>Download</a>');
    expect(viewer.body).not.toMatch(/<script>(?!<)/);
    const report = /data-report="([^"]+)" data-token="([^"]+)"/.exec(viewer.body);
    const [, url, token] = report ?? [];
    expect(url).toMatch(/^\/v\/.+\/views\/[0-9a-f-]{36}\/report$/);
    const viewId = url?.split('/')[4] as string;

    // The browser never receives the file: its pages come as images the service rendered.
    expect((await bo.get(`/v/${shortId}/d/${deck}/file`)).statusCode).toBe(404);
    const image = `/v/${shortId}/d/${deck}/pages/1?w=800`;
    expect((await bo.get(image)).statusCode).toBe(503); // not drawn yet: the viewer asks again
    // ... and the renderer is told that a viewer waits for this version.
    const [version] = await db.query<{ id: string }>(
      'SELECT id FROM document_versions WHERE document_id = $1',
      [deck],
    );
    expect(wanted).toContain(version?.id);
    await render(deck);
    const first = await bo.get(image);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe('image/webp');
    expect(first.rawPayload.subarray(8, 12).toString()).toBe('WEBP');
    expect(first.rawPayload.includes('%PDF-')).toBe(false);
    expect((await bo.get(`/v/${shortId}/d/${deck}/pages/4?w=800`)).statusCode).toBe(404);
    expect((await bo.get(`/v/${shortId}/d/${deck}/pages/1?w=123`)).statusCode).toBe(400);
    // No image without the session that opened the link.
    expect((await visitor().get(image)).statusCode).toBe(404);
    expect(viewer.body).toContain('alt="Page 3"');
    expect(viewer.body).toContain('1 / 3');
    expect(viewer.body).toContain('aria-label="Previous page"');
    expect(viewer.body).toContain('aria-label="Next page"');
    expect(viewer.body).not.toContain('/file');

    clock.advance(10_000);
    expect((await bo.report(url as string, { token, id: 'r1', pages: { 1: 6, 2: 3 } })).statusCode).toBe(204);
    // The same report again (its answer was lost): counted once.
    expect((await bo.report(url as string, { token, id: 'r1', pages: { 1: 6, 2: 3 } })).statusCode).toBe(204);
    // A page the document does not have is refused, and nothing of the report is counted.
    expect((await bo.report(url as string, { token, id: 'r2', pages: { 1: 1, 4: 3 } })).statusCode).toBe(400);
    expect((await bo.report(url as string, { token, pages: { 999999: 3 } })).statusCode).toBe(400);
    clock.advance(10_000);
    expect((await bo.report(url as string, { token, id: 'r3', pages: { 2: 4, 3: 40 } })).statusCode).toBe(
      204,
    );
    // Never more active time than has passed since the view started (20 s), plus 10 s once.
    const [row] = await db.query<{ duration_seconds: number; completed_at: Date | null }>(
      'SELECT duration_seconds, completed_at FROM views WHERE id = $1',
      [viewId],
    );
    expect(row).toEqual({ duration_seconds: 30, completed_at: null });
    // Another token, or none, is not this view's.
    expect((await bo.report(url as string, { token: 'x', pages: { 1: 5 } })).statusCode).toBe(404);
    expect((await visitor().report(url as string, { token, pages: { 1: 5 } })).statusCode).toBe(404);

    clock.advance(5_000);
    expect((await bo.report(url as string, { token, pages: { 3: 2 }, final: true })).statusCode).toBe(204);
    expect((await bo.report(url as string, { token, pages: { 3: 2 }, final: true })).statusCode).toBe(409);
    const completed = (await recordedEvents(db)).filter(
      (e) => e.type === 'view.completed' && e.data.id === viewId,
    );
    expect(completed).toHaveLength(1);
    // 5 more seconds passed: the 2 reported fit within the time since the start (25 + 10).
    expect(completed[0]?.data).toMatchObject({ id: viewId, linkId, durationSeconds: 32 });

    const figures = (await admin.get(`/documents/${deck}/pages?period=7d`)).body.data;
    expect(figures).toEqual({
      documentId: deck,
      period: '7d',
      pageCount: 3,
      views: 1,
      completion: 1,
      pages: [
        { page: 1, views: 1, activeSeconds: 6, avgActiveSeconds: 6 },
        { page: 2, views: 1, activeSeconds: 7, avgActiveSeconds: 7 },
        { page: 3, views: 1, activeSeconds: 19, avgActiveSeconds: 19 },
      ],
    });
    const key = (await admin.post(`/teams/${teamId}/keys`, { name: 'crm' })).body.data.key as string;
    const room2 = await readApi(`/v1/deal-rooms/${roomId}`, key);
    expect(room2).toMatchObject({ totalViews: 1, uniqueViewers: 1, avgViewDurationSeconds: 32 });
  });

  it('completes a view whose page stopped reporting after 5 minutes, once, with the time reported', async () => {
    const { shortId, deck } = await room();
    const cy = visitor();
    const viewer = await cy.get(`/v/${shortId}/d/${deck}`);
    const [, url, token] = /data-report="([^"]+)" data-token="([^"]+)"/.exec(viewer.body) ?? [];
    const viewId = url?.split('/')[4] as string;
    clock.advance(10_000);
    await cy.report(url as string, { token, pages: { 1: 8 } });
    const ctx = { db, clock, appUrl: '' };
    clock.advance(4 * MINUTE);
    expect(await completeSilentViews(ctx)).toBe(0);
    clock.advance(MINUTE + 1000);
    expect(await completeSilentViews(ctx)).toBeGreaterThanOrEqual(1);
    expect(await completeSilentViews(ctx)).toBe(0);
    const completed = (await recordedEvents(db)).filter(
      (e) => e.type === 'view.completed' && e.data.id === viewId,
    );
    expect(completed.map((e) => e.data.durationSeconds)).toEqual([8]);

    // A view whose page never reported at all is completed the same way, with no time.
    const silent = await cy.get(`/v/${shortId}/d/${deck}`);
    const silentId = (/data-report="([^"]+)"/.exec(silent.body)?.[1] ?? '').split('/')[4] as string;
    clock.advance(5 * MINUTE + 1000);
    expect(await completeSilentViews(ctx)).toBe(1);
    const never = (await recordedEvents(db)).filter(
      (e) => e.type === 'view.completed' && e.data.id === silentId,
    );
    expect(never.map((e) => e.data.durationSeconds)).toEqual([0]);
  });

  it('refuses a report through another link (404) and through a link turned off since the view opened (410)', async () => {
    const { roomId, linkId, shortId, deck } = await room();
    const other = (await admin.post(`/deal-rooms/${roomId}/links`, { name: 'Other' })).body.data as {
      shortId: string;
    };
    const dee = visitor();
    const viewer = await dee.get(`/v/${shortId}/d/${deck}`);
    const [, url, token] = /data-report="([^"]+)" data-token="([^"]+)"/.exec(viewer.body) ?? [];
    await dee.get(`/v/${other.shortId}`);
    const elsewhere = (url as string).replace(shortId, other.shortId);
    clock.advance(10_000);
    expect((await dee.report(elsewhere, { token, pages: { 1: 5 } })).statusCode).toBe(404);
    // The right address, but with the other link's session (this jar keeps one): refused too.
    expect((await dee.report(url as string, { token, pages: { 1: 5 } })).statusCode).toBe(404);
    // A browser keeps one session per link's path: with this link's again, the report counts.
    await dee.get(`/v/${shortId}`);
    expect((await dee.report(url as string, { token, pages: { 1: 5 } })).statusCode).toBe(204);
    expect((await admin.patch(`/links/${linkId}`, { enabled: false })).status).toBe(200);
    clock.advance(10_000);
    const closed = await dee.report(url as string, { token, pages: { 1: 5 } });
    expect(closed.statusCode).toBe(410);
    expect(closed.body).toContain('no longer active');
    const [row] = await db.query<{ duration_seconds: number }>(
      'SELECT duration_seconds FROM views WHERE id = $1',
      [(url as string).split('/')[4]],
    );
    expect(row?.duration_seconds).toBe(5);
  });

  it('counts the reports of many readers arriving at once exactly once, each figure and each view.completed', async () => {
    const { teamId, roomId, shortId, deck } = await room();
    const readers = await Promise.all(
      Array.from({ length: 12 }, async (_, n) => {
        const reader = visitor(`192.0.2.${n + 1}`);
        const viewer = await reader.get(`/v/${shortId}/d/${deck}`);
        const [, url, token] = /data-report="([^"]+)" data-token="([^"]+)"/.exec(viewer.body) ?? [];
        return { reader, url: url as string, token: token as string };
      }),
    );
    clock.advance(10_000);
    // Two reports per reader at once (a reader's second waits for the batch after its first),
    // then the final ones, each sent twice: one completes the view, its repeat is a 409.
    const sent = await Promise.all(
      readers.flatMap(({ reader, url, token }, n) => [
        reader.report(url, { token, pages: { 1: 2, 2: 1 } }),
        reader.report(url, { token, pages: { [(n % 3) + 1]: 1 } }),
      ]),
    );
    expect(sent.map((r) => r.statusCode)).toEqual(sent.map(() => 204));
    const finals = await Promise.all(
      readers.flatMap(({ reader, url, token }) => [
        reader.report(url, { token, pages: { 3: 1 }, final: true }),
        reader.report(url, { token, pages: { 3: 1 }, final: true }),
      ]),
    );
    expect(finals.map((r) => r.statusCode).sort()).toEqual([
      ...readers.map(() => 204),
      ...readers.map(() => 409),
    ]);

    const viewIds = readers.map(({ url }) => url.split('/')[4] as string);
    const views = await db.query<{ duration_seconds: number; completed: boolean }>(
      'SELECT duration_seconds, completed_at IS NOT NULL AS completed FROM views WHERE id = ANY($1::uuid[])',
      [viewIds],
    );
    expect(views).toEqual(readers.map(() => ({ duration_seconds: 5, completed: true })));
    const completed = (await recordedEvents(db)).filter(
      (e) => e.type === 'view.completed' && viewIds.includes(e.data.id as string),
    );
    expect(completed.map((e) => e.data.id).sort()).toEqual([...viewIds].sort());
    expect(completed.every((e) => e.data.durationSeconds === 5)).toBe(true);

    const figures = (await admin.get(`/documents/${deck}/pages?period=7d`)).body.data;
    expect(figures).toMatchObject({ views: 12, completion: 1 });
    expect(figures.pages).toEqual([
      { page: 1, views: 12, activeSeconds: 24 + 4, avgActiveSeconds: 2 },
      { page: 2, views: 12, activeSeconds: 12 + 4, avgActiveSeconds: 1 },
      { page: 3, views: 12, activeSeconds: 12 + 4, avgActiveSeconds: 1 },
    ]);
    const key = (await admin.post(`/teams/${teamId}/keys`, { name: 'crm' })).body.data.key as string;
    expect(await readApi(`/v1/deal-rooms/${roomId}`, key)).toMatchObject({
      totalViews: 12,
      uniqueViewers: 12,
      avgViewDurationSeconds: 5,
    });
    const viewers = (await readApi(`/v1/deal-rooms/${roomId}/viewers?per_page=100`, key)) as unknown as {
      totalDurationSeconds: number;
    }[];
    expect(viewers.map((v) => v.totalDurationSeconds)).toEqual(readers.map(() => 5));
  });

  it('downloads a file when allowed (download.created) and answers a 403 page when not (download.denied)', async () => {
    const { shortId, deck, linkId } = await room({ allowDownload: false });
    const di = visitor();
    await di.get(`/v/${shortId}`);
    const viewer = await di.get(`/v/${shortId}/d/${deck}`);
    expect(viewer.body).not.toContain('>Download</a>');
    const denied = await di.get(`/v/${shortId}/d/${deck}/download`);
    expect(denied.statusCode).toBe(403);
    expect(denied.body).toContain('Downloads are not allowed');
    expect(denied.headers['content-type']).toBe('text/html; charset=utf-8');

    expect((await admin.patch(`/documents/${deck}`, { downloadOverride: true })).status).toBe(200);
    clock.advance(1000);
    const allowed = await di.get(`/v/${shortId}/d/${deck}/download`);
    expect(allowed.statusCode).toBe(200);
    expect(allowed.headers['content-disposition']).toBe('attachment; filename="Pitch _deck_.pdf"');
    expect(allowed.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const types = (await recordedEvents(db))
      .filter((e) => e.type.startsWith('download.') && e.data.linkId === linkId)
      .map((e) => e.type);
    expect(types).toEqual(['download.denied', 'download.created']);
  });

  it('serves no bytes of a gated link without the session that passed its gate', async () => {
    const { shortId, deck } = await room({ requiresEmail: true, allowDownload: true });
    const stranger = visitor();
    for (const path of ['', '/file', '/download']) {
      const response = await stranger.get(`/v/${shortId}/d/${deck}${path}`);
      expect(response.statusCode, path).toBe(404);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.rawPayload.includes(Buffer.from('%PDF-'))).toBe(false);
    }
    // Another link's session does not open this one.
    const other = await room();
    await stranger.get(`/v/${other.shortId}`);
    expect((await stranger.get(`/v/${shortId}/d/${deck}/file`)).statusCode).toBe(404);
  });

  it('draws the watermark into the page images, per viewer, and stamps it on downloads (any script), recorded once delivered', async () => {
    const { shortId, deck } = await room({ requiresEmail: true, watermark: true });
    await render(deck);
    const reader = async (email: string) => {
      const v = visitor();
      expect((await v.post(`/v/${shortId}`, { token: await v.token(shortId), email })).statusCode).toBe(303);
      expect((await v.get(`/v/${shortId}/d/${deck}`)).body).not.toContain('class="watermark"');
      return v;
    };
    const one = await reader('почта@пример.рф');
    const other = await reader('cfo@buyer.example');
    const image = `/v/${shortId}/d/${deck}/pages/2?w=800`;
    const a = await one.get(image);
    const b = await other.get(image);
    expect(a.statusCode).toBe(200);
    expect(a.headers['content-type']).toBe('image/webp');
    // The pixels differ per viewer: the email is in them, not in a layer over them.
    expect(Buffer.compare(a.rawPayload, b.rawPayload)).not.toBe(0);
    expect(Buffer.compare(a.rawPayload, (await one.get(image)).rawPayload)).toBe(0);
    const [plain] = await db.query<{ bytes: Uint8Array }>(
      `SELECT i.bytes FROM page_images i JOIN document_files f ON f.version_id = i.version_id
        WHERE f.document_id = $1 AND i.page = 2 AND i.width = 800`,
      [deck],
    );
    expect(Buffer.compare(a.rawPayload, Buffer.from(plain?.bytes ?? []))).not.toBe(0);

    const before = (await recordedEvents(db)).filter((e) => e.type === 'download.created').length;
    const download = await one.get(`/v/${shortId}/d/${deck}/download`);
    expect(download.statusCode).toBe(200);
    expect(download.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    const stamped = await pdfjs.getDocument({ data: new Uint8Array(download.rawPayload), verbosity: 0 })
      .promise;
    const text = (await (await stamped.getPage(3)).getTextContent()).items
      .map((i) => ('str' in i ? i.str : ''))
      .join(' ');
    expect(text).toContain('почта@пример.рф');
    expect(text).toContain('Investors');
    await stamped.destroy();
    expect((await recordedEvents(db)).filter((e) => e.type === 'download.created').length).toBe(before + 1);
  });

  async function readApi(url: string, key: string) {
    const { testApp } = await import('../testing/app.ts');
    const api = await testApp(db, clock);
    try {
      return (await api.get(url, key)).body.data;
    } finally {
      await api.app.close();
    }
  }
});

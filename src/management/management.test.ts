import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, managedRoom, recordedEvents, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';
import { ADMIN_TOKEN_THROTTLE } from './app.ts';

const MINUTE = 60_000;

describe.each(storeKinds())('management API (%s store)', (kind) => {
  const s = useManagement(kind);

  /** A team with a read key, a room, a published document and a link. */
  async function setup() {
    s.clock.advance(MINUTE);
    return managedRoom(s.admin, { team: 'Acme Capital', room: 'Falcon', link: 'Investors' });
  }
  const read = async (url: string, key: string) => (await s.api.get(url, key)).body;
  const lastEvent = async (type: string) =>
    (await recordedEvents(s.db)).filter((e) => e.type === type).at(-1);

  it('needs the admin token, compared exactly', async () => {
    const none = await s.admin.app.inject({ method: 'POST', url: '/teams', payload: { name: 'x' } });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toEqual({ error: 'Admin token is required', code: 'unauthorized' });
    expect(none.headers['www-authenticate']).toBe('Bearer');
    for (const authorization of [`Bearer ${ADMIN_TOKEN}x`, `Bearer ${ADMIN_TOKEN.slice(1)}`, ADMIN_TOKEN]) {
      const wrong = await s.admin.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toEqual({ error: 'Invalid admin token', code: 'unauthorized' });
    }
    await s.admin.post('/teams', { name: 'Counted' });
    const metrics = await s.admin.get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/^dealroom_writes_total\{route="POST \/teams"\} [1-9]/m);
    expect(metrics.body).toMatch(
      /^dealroom_http_request_duration_seconds_count\{api="management",route="\/teams",status="201"\} [1-9]/m,
    );
  });

  it('counts failed admin-token requests, makes an address that keeps failing wait, and always serves the right token', async () => {
    const from = (remoteAddress: string, authorization?: string) =>
      s.admin.app.inject({
        method: 'GET',
        url: '/teams',
        remoteAddress,
        headers: authorization ? { authorization } : {},
      });
    const guesser = '203.0.113.7';
    for (let i = 0; i < ADMIN_TOKEN_THROTTLE.limit; i++) {
      expect((await from(guesser, i % 2 ? undefined : `Bearer guess-${i}`)).statusCode).toBe(401);
    }
    s.clock.advance(20_000);
    // The right token is always served, even from the address that guessed.
    expect((await from(guesser, `Bearer ${ADMIN_TOKEN}`)).statusCode).toBe(200);
    const waiting = await from(guesser, 'Bearer guess-again');
    expect(waiting.statusCode).toBe(429);
    expect(waiting.json()).toEqual({
      error: 'Too many requests with a wrong admin token; try again later',
      code: 'rate_limit',
    });
    expect(waiting.headers['retry-after']).toBe('40');
    // Another address is not held back, and the guesser may try again once the window has passed.
    expect((await from('203.0.113.8', 'Bearer guess-elsewhere')).statusCode).toBe(401);
    expect(await from(guesser)).toMatchObject({ statusCode: 429 });
    s.clock.advance(40_000);
    expect((await from(guesser, 'Bearer guess-after')).statusCode).toBe(401);
    const metrics = (await s.admin.get('/metrics')).body as string;
    expect(metrics).toMatch(/^dealroom_admin_token_failures_total\{reason="invalid"\} ([5-9]|\d\d)/m);
    expect(metrics).toMatch(/^dealroom_admin_token_failures_total\{reason="missing"\} ([5-9]|\d\d)/m);
    expect(metrics).toMatch(/^dealroom_admin_token_failures_total\{reason="throttled"\} 2$/m);
  });

  it('keeps a room, its documents and links, and emits their events rendered as the read API shows them', async () => {
    const { teamId, key, roomId, documentId, linkId } = await setup();
    const created = await lastEvent('deal_room.created');
    expect(await s.admin.get('/metrics')).toMatchObject({
      body: expect.stringMatching(/^dealroom_events_recorded_total\{type="deal_room.created"\} [1-9]/m),
    });
    expect(created).toMatchObject({ type: 'deal_room.created', teamId, apiVersion: '2026-04-01' });

    s.clock.advance(MINUTE);
    const renamed = await s.admin.patch(`/deal-rooms/${roomId}`, {
      name: 'Falcon II',
      description: 'Series C',
    });
    expect(renamed.status).toBe(200);
    const single = await read(`/v1/deal-rooms/${roomId}`, key);
    expect(renamed.body.data).toEqual({ ...single.data, teamId });
    expect((await lastEvent('deal_room.updated'))?.data).toEqual(single.data);
    expect(single.data).toMatchObject({ name: 'Falcon II', documentCount: 1, linkCount: 1 });

    const documents = await read(`/v1/deal-rooms/${roomId}/documents`, key);
    expect((await lastEvent('document.created'))?.data).toEqual(documents.data[0]);
    const links = await read(`/v1/deal-rooms/${roomId}/links`, key);
    expect((await lastEvent('link.created'))?.data).toEqual(links.data[0]);

    // A draft is not listed; publishing lists it, counts it and moves updatedAt.
    s.clock.advance(MINUTE);
    const draft = await s.admin.post(`/deal-rooms/${roomId}/documents`, {
      name: 'Model.xlsx',
      sourceType: 'google_drive',
    });
    expect(draft.body.data).toMatchObject({
      status: 'draft',
      position: 2,
      downloadOverride: null,
      dealRoomId: roomId,
    });
    expect((await read(`/v1/deal-rooms/${roomId}`, key)).data.documentCount).toBe(1);
    s.clock.advance(MINUTE);
    const published = await s.admin.post(`/documents/${draft.body.data.id}/publish`);
    expect(published.body.data.status).toBe('published');
    const room = (await read(`/v1/deal-rooms/${roomId}`, key)).data;
    expect(room.documentCount).toBe(2);
    expect(room.updatedAt).toBe(s.clock.now().toISOString());
    expect((await lastEvent('document.published'))?.data).toEqual(
      (await read(`/v1/deal-rooms/${roomId}/documents`, key)).data[1],
    );
    // Publishing again changes nothing and records nothing.
    const before = (await recordedEvents(s.db)).length;
    expect((await s.admin.post(`/documents/${draft.body.data.id}/publish`)).status).toBe(200);
    expect((await recordedEvents(s.db)).length).toBe(before);
    expect((await s.admin.post(`/documents/${draft.body.data.id}/unpublish`)).body.data.status).toBe('draft');
    expect((await lastEvent('document.unpublished'))?.data).toMatchObject({ status: 'draft' });
    const updated = await s.admin.patch(`/documents/${documentId}`, {
      downloadOverride: false,
      displayName: 'The deck',
    });
    expect(updated.body.data).toMatchObject({ downloadOverride: false, displayName: 'The deck' });
    expect((await lastEvent('document.updated'))?.data).not.toHaveProperty('downloadOverride');

    // Archive and restore move the room between the status filters.
    expect((await s.admin.post(`/deal-rooms/${roomId}/archive`)).body.data.status).toBe('archived');
    expect((await read('/v1/deal-rooms?status=archived', key)).data.map((r: { id: string }) => r.id)).toEqual(
      [roomId],
    );
    expect((await s.admin.post(`/deal-rooms/${roomId}/restore`)).body.data.status).toBe('active');
    expect((await read('/v1/deal-rooms?status=active', key)).meta.pagination.total).toBe(1);
    expect((await recordedEvents(s.db)).map((e) => e.type)).toEqual(
      expect.arrayContaining(['deal_room.archived', 'deal_room.restored']),
    );

    // Deactivating a link; deleting it renders it as it was.
    expect((await s.admin.post(`/links/${linkId}/deactivate`)).body.data).toMatchObject({
      enabled: false,
      isActive: false,
    });
    const linkBefore = (await read(`/v1/deal-rooms/${roomId}/links`, key)).data[0];
    expect((await s.admin.del(`/links/${linkId}`)).status).toBe(204);
    expect((await lastEvent('link.deleted'))?.data).toEqual(linkBefore);
    expect((await read(`/v1/deal-rooms/${roomId}`, key)).data.linkCount).toBe(0);

    const roomBefore = (await read(`/v1/deal-rooms/${roomId}`, key)).data;
    expect((await s.admin.del(`/deal-rooms/${roomId}`)).status).toBe(204);
    expect((await lastEvent('deal_room.deleted'))?.data).toEqual(roomBefore);
    expect((await s.api.get(`/v1/deal-rooms/${roomId}`, key)).status).toBe(404);
    expect((await read('/v1/deal-rooms', key)).meta.pagination.total).toBe(0);
    expect((await s.admin.del(`/deal-rooms/${roomId}`)).status).toBe(404);
  });

  it('tracks visits, views and downloads; the read API follows each write at once', async () => {
    const { teamId, key, roomId, documentId, linkId } = await setup();
    const viewer = { email: ' Ann@Example.com ', name: 'Ann' };
    expect((await s.admin.post(`/links/${linkId}/visits`, { viewer })).status).toBe(201);
    expect((await read(`/v1/deal-rooms/${roomId}/links`, key)).data[0].totalClicks).toBe(1);

    const started = await s.admin.post(`/links/${linkId}/views`, { documentId, viewer });
    expect(started.status).toBe(201);
    const view = started.body.data;
    expect(view).toMatchObject({ dealRoomId: roomId, documentId, linkId, durationSeconds: 0 });
    expect((await lastEvent('view.started'))?.data).toEqual(view);
    const viewers = await read(`/v1/deal-rooms/${roomId}/viewers`, key);
    expect(viewers.data[0]).toMatchObject({
      email: 'ann@example.com',
      name: 'Ann',
      totalViews: 1,
      linkName: 'Investors',
    });
    expect((await lastEvent('viewer.created'))?.data).toEqual({ ...viewers.data[0], dealRoomId: roomId });
    expect((await lastEvent('viewer.created'))?.teamId).toBe(teamId);

    const completed = await s.admin.post(`/views/${view.id}/complete`, { durationSeconds: 125 });
    expect(completed.body.data.durationSeconds).toBe(125);
    expect((await lastEvent('view.completed'))?.data).toEqual(completed.body.data);
    const analytics = (await read(`/v1/deal-rooms/${roomId}/analytics`, key)).data;
    expect(analytics).toMatchObject({ totalViews: 1, uniqueViewers: 1, avgViewDurationSeconds: 125 });
    expect((await s.admin.post(`/views/${view.id}/complete`, { durationSeconds: 1 })).status).toBe(409);

    // 29 minutes later is no return; 30 minutes after the previous start is.
    const count = async (type: string) => (await recordedEvents(s.db)).filter((e) => e.type === type).length;
    s.clock.advance(29 * MINUTE);
    await s.admin.post(`/links/${linkId}/views`, { documentId, viewer: { email: 'ann@example.com' } });
    expect(await count('viewer.returned')).toBe(0);
    s.clock.advance(30 * MINUTE);
    await s.admin.post(`/links/${linkId}/views`, { documentId, viewer: { email: 'ann@example.com' } });
    expect(await count('viewer.returned')).toBe(1);
    expect((await lastEvent('viewer.returned'))?.data).toMatchObject({
      totalViews: 3,
      name: 'Ann',
      dealRoomId: roomId,
    });
    expect(await count('viewer.created')).toBe(1);

    // Downloads: allowed by the link; the document's override refuses, and the refusal is recorded.
    const download = await s.admin.post(`/links/${linkId}/downloads`, { documentId, viewer });
    expect(download.status).toBe(201);
    expect((await lastEvent('download.created'))?.data).toEqual(download.body.data);
    await s.admin.patch(`/documents/${documentId}`, { downloadOverride: false });
    const denied = await s.admin.post(`/links/${linkId}/downloads`, { documentId, viewer });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({ error: expect.any(String), code: 'download_denied' });
    expect((await lastEvent('download.denied'))?.data).toMatchObject({ documentId, linkId });
    expect((await read(`/v1/deal-rooms/${roomId}/analytics`, key)).data.totalDownloads).toBe(1);

    // Deleting the document takes its views and downloads off every figure.
    expect((await s.admin.del(`/documents/${documentId}`)).status).toBe(204);
    expect((await read(`/v1/deal-rooms/${roomId}`, key)).data).toMatchObject({
      totalViews: 0,
      uniqueViewers: 0,
      documentCount: 0,
    });
    expect((await read(`/v1/deal-rooms/${roomId}/analytics`, key)).data).toMatchObject({
      totalDownloads: 0,
      topDocuments: [],
    });
    expect((await read(`/v1/deal-rooms/${roomId}/viewers`, key)).meta.pagination.total).toBe(0);
  });

  it('refuses views through a closed link or of a document the link does not show', async () => {
    const { roomId, documentId, linkId } = await setup();
    const viewer = { email: 'bo@example.com' };
    const other = (
      await s.admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Other', status: 'published' })
    ).body.data.id;
    const only = await s.admin.post(`/deal-rooms/${roomId}/links`, {
      name: 'Only the deck',
      documentIds: [documentId],
      requiresEmail: true,
      expiresAt: new Date(s.clock.now().getTime() + 10 * MINUTE).toISOString(),
    });
    expect(only.body.data).toMatchObject({ documentIds: [documentId], requiresEmail: true });
    const onlyId = only.body.data.id;
    expect((await s.admin.post(`/links/${onlyId}/views`, { documentId: other, viewer })).status).toBe(404);
    const anonymous = await s.admin.post(`/links/${onlyId}/views`, {
      documentId,
      viewer: { visitorId: 'v1' },
    });
    expect(anonymous.status).toBe(400);
    expect(anonymous.body.error).toMatch(/email/);
    expect((await s.admin.post(`/links/${onlyId}/views`, { documentId, viewer })).status).toBe(201);
    s.clock.advance(11 * MINUTE);
    const expired = await s.admin.post(`/links/${onlyId}/views`, { documentId, viewer });
    expect(expired).toMatchObject({
      status: 409,
      body: { error: 'This link has expired', code: 'conflict' },
    });
    await s.admin.post(`/links/${linkId}/deactivate`);
    const disabled = await s.admin.post(`/links/${linkId}/views`, { documentId, viewer });
    expect(disabled).toMatchObject({
      status: 409,
      body: { error: 'This link is disabled', code: 'conflict' },
    });
    const draft = (await s.admin.post(`/deal-rooms/${roomId}/documents`, { name: 'Draft' })).body.data.id;
    const open = (await s.admin.post(`/deal-rooms/${roomId}/links`, { name: 'Open' })).body.data.id;
    expect((await s.admin.post(`/links/${open}/views`, { documentId: draft, viewer })).status).toBe(404);
    const future = new Date(s.clock.now().getTime() + 6 * MINUTE).toISOString();
    expect(
      (await s.admin.post(`/links/${open}/views`, { documentId, viewer, startedAt: future })).status,
    ).toBe(400);
  });

  it('validates every body field and answers malformed or unknown ids with 404', async () => {
    const { teamId, roomId, linkId, documentId } = await setup();
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/teams', {}, /^name is required$/],
      ['POST', '/teams', { name: 'x', plan: 'pro' }, /^plan is not a known field$/],
      ['POST', '/teams', { name: 7 }, /^name must be a string$/],
      ['POST', '/teams', { name: 'x'.repeat(201) }, /^name /],
      ['POST', '/teams', { name: '   ' }, /^name /],
      ['POST', `/teams/${teamId}/deal-rooms`, [], /object/],
      ['PATCH', `/deal-rooms/${roomId}`, {}, /at least one field/],
      [
        'POST',
        `/deal-rooms/${roomId}/documents`,
        { name: 'a', sourceType: 'ftp' },
        /^sourceType must be one of/,
      ],
      [
        'POST',
        `/deal-rooms/${roomId}/documents`,
        { name: 'a', pageCount: 1.5 },
        /^pageCount must be an integer$/,
      ],
      ['POST', `/deal-rooms/${roomId}/links`, { name: 'a', shortId: 'no spaces' }, /^shortId /],
      ['POST', `/deal-rooms/${roomId}/links`, { name: 'a', expiresAt: 'tomorrow' }, /^expiresAt /],
      ['POST', `/deal-rooms/${roomId}/links`, { name: 'a', documentIds: ['nope'] }, /^documentIds/],
      ['POST', `/links/${linkId}/views`, { documentId, viewer: { email: 'not-an-email' } }, /^viewer.email /],
      ['POST', `/links/${linkId}/views`, { documentId, viewer: {} }, /^viewer /],
      ['POST', `/links/${linkId}/views`, { viewer: { email: 'a@b.co' } }, /^documentId is required$/],
      [
        'POST',
        `/links/${linkId}/visits`,
        { viewer: { email: 'a@b.co', phone: '1' } },
        /^viewer.phone is not a known field$/,
      ],
      [
        'POST',
        `/teams/${teamId}/webhook-endpoints`,
        { url: 'https://x.example', events: ['room.exploded'] },
        /^events.0 must be one of/,
      ],
    ];
    for (const [method, url, body, message] of cases) {
      const answer = await s.admin.call(method as 'POST', url, body);
      expect(answer.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(400);
      expect(answer.body.code).toBe('validation_error');
      expect(answer.body.error, `${method} ${url} ${JSON.stringify(body)}`).toMatch(message);
    }
    const notJson = await s.admin.app.inject({
      method: 'POST',
      url: '/teams',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      payload: '{"name":',
    });
    expect(notJson.json()).toEqual({ error: 'The body is not valid JSON', code: 'validation_error' });
    for (const url of [
      '/deal-rooms/not-a-uuid',
      '/deal-rooms/00000000-0000-4000-8000-000000000000',
      '/documents/x',
      '/links/x',
    ]) {
      expect((await s.admin.patch(url, { name: 'a' })).body).toMatchObject({ code: 'not_found' });
    }
    expect((await s.admin.post('/teams/zzz/deal-rooms', { name: 'a' })).status).toBe(404);
    expect((await s.admin.post('/views/zzz/complete', { durationSeconds: 1 })).status).toBe(404);
    expect((await s.admin.get('/nowhere')).body).toEqual({ error: 'Not found', code: 'not_found' });
  });

  it('refuses a sixth active key, a duplicate shortId and an eleventh endpoint with 409', async () => {
    const { teamId, roomId } = await setup();
    for (let i = 0; i < 4; i++) expect((await s.admin.post(`/teams/${teamId}/keys`, {})).status).toBe(201);
    const sixth = await s.admin.post(`/teams/${teamId}/keys`, {});
    expect(sixth.status).toBe(409);
    expect(sixth.body.error).toMatch(/at most 5 active API keys/);
    const keys = (await s.admin.get(`/teams/${teamId}/keys`)).body.data;
    expect(keys).toHaveLength(5);
    expect(JSON.stringify(keys)).not.toMatch(/dr_live_[A-Za-z0-9]{20}/);
    expect((await s.admin.del(`/keys/${keys[0].id}`)).status).toBe(204);
    expect((await s.admin.post(`/teams/${teamId}/keys`, {})).status).toBe(201);

    const first = await s.admin.post(`/deal-rooms/${roomId}/links`, {
      name: 'a',
      shortId: 'falcon-1',
      password: 'hunter22',
    });
    expect(first.body.data).toMatchObject({ shortId: 'falcon-1', requiresPassword: true });
    expect(JSON.stringify(first.body)).not.toMatch(/hunter2|scrypt/);
    // A link password is at least 8 characters.
    const short = await s.admin.post(`/deal-rooms/${roomId}/links`, { name: 'c', password: 'hunter2' });
    expect(short).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    expect(short.body.error).toMatch(/password/);
    const again = await s.admin.post(`/deal-rooms/${roomId}/links`, { name: 'b', shortId: 'falcon-1' });
    expect(again).toMatchObject({ status: 409, body: { code: 'conflict' } });
    const unset = await s.admin.patch(`/links/${first.body.data.id}`, { password: null });
    expect(unset.body.data.requiresPassword).toBe(false);

    for (let i = 0; i < 10; i++) {
      const created = await s.admin.post(`/teams/${teamId}/webhook-endpoints`, {
        url: `https://hooks.example.com/${i}`,
      });
      expect(created.status).toBe(201);
      expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    }
    const eleventh = await s.admin.post(`/teams/${teamId}/webhook-endpoints`, {
      url: 'https://hooks.example.com/11',
    });
    expect(eleventh.status).toBe(409);
    const listed = (await s.admin.get(`/teams/${teamId}/webhook-endpoints`)).body.data;
    expect(listed).toHaveLength(10);
    expect(JSON.stringify(listed)).not.toMatch(/whsec_/);
  });

  it('records one delivery per subscribed, enabled endpoint in the event’s transaction', async () => {
    const { teamId, roomId } = await setup();
    const all = (await s.admin.post(`/teams/${teamId}/webhook-endpoints`, { url: 'https://a.example.com/h' }))
      .body.data;
    const docsOnly = (
      await s.admin.post(`/teams/${teamId}/webhook-endpoints`, {
        url: 'https://b.example.com/h',
        events: ['document.created'],
      })
    ).body.data;
    const off = (
      await s.admin.post(`/teams/${teamId}/webhook-endpoints`, {
        url: 'https://c.example.com/h',
        enabled: false,
      })
    ).body.data;
    expect(docsOnly.events).toEqual(['document.created']);
    await s.admin.patch(`/deal-rooms/${roomId}`, { name: 'Renamed' });
    await s.admin.post(`/deal-rooms/${roomId}/documents`, { name: 'New' });
    const deliveries = await s.db.query<{ endpoint_id: string; type: string }>(
      `SELECT d.endpoint_id, e.type FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
        WHERE e.team_id = $1 AND d.state = 'pending' ORDER BY e.type, d.endpoint_id`,
      [teamId],
    );
    expect(deliveries).toEqual(
      [
        { endpoint_id: all.id, type: 'deal_room.updated' },
        { endpoint_id: all.id, type: 'document.created' },
        { endpoint_id: docsOnly.id, type: 'document.created' },
      ].sort((a, b) => (a.type + a.endpoint_id < b.type + b.endpoint_id ? -1 : 1)),
    );
    expect(deliveries.some((d) => d.endpoint_id === off.id)).toBe(false);

    const rotated = await s.admin.post(`/webhook-endpoints/${all.id}/rotate-secret`);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    const [secrets] = await s.db.query<{ previous_secret: string | null }>(
      "SELECT previous_secrets->0->>'secret' AS previous_secret FROM webhook_endpoints WHERE id = $1",
      [all.id],
    );
    expect(secrets?.previous_secret).toMatch(/^whsec_/);
    expect(secrets?.previous_secret).not.toBe(rotated.body.data.secret);
    expect((await s.admin.patch(`/webhook-endpoints/${all.id}`, { enabled: false })).body.data.enabled).toBe(
      false,
    );
    expect((await s.admin.get(`/webhook-endpoints/${all.id}/attempts`)).body).toEqual({
      data: [],
      meta: { pagination: { page: 1, perPage: 20, total: 0, totalPages: 0 } },
    });
    expect((await s.admin.get(`/teams/${teamId}/dead-letters`)).body.data).toEqual([]);
    expect((await s.admin.del(`/webhook-endpoints/${docsOnly.id}`)).status).toBe(204);
    const left = await s.db.query('SELECT 1 FROM webhook_deliveries WHERE endpoint_id = $1', [docsOnly.id]);
    expect(left).toEqual([]);
  });

  it('answers a repeated Idempotency-Key with the first answer and changes nothing', async () => {
    const { key, roomId, documentId, linkId } = await setup();
    const body = { documentId, viewer: { email: 'retry@example.com' } };
    const headers = { 'idempotency-key': `view-${roomId}` };
    const first = await s.admin.post(`/links/${linkId}/views`, body, headers);
    const second = await s.admin.post(`/links/${linkId}/views`, body, headers);
    expect(second).toMatchObject({ status: 201, body: first.body });
    expect((await read(`/v1/deal-rooms/${roomId}`, key)).data.totalViews).toBe(1);
    expect(
      (await recordedEvents(s.db)).filter(
        (e) => e.type === 'view.started' && (e.data as { id: string }).id === first.body.data.id,
      ),
    ).toHaveLength(1);
    const different = await s.admin.post(
      `/links/${linkId}/views`,
      { ...body, viewer: { email: 'x@example.com' } },
      headers,
    );
    expect(different.status).toBe(409);
    expect((await s.admin.post(`/links/${linkId}/views`, body, { 'idempotency-key': '' })).status).toBe(400);

    // The plain key is never kept: a repeat gets the key's record without it.
    const teamId = (await s.admin.post('/teams', { name: 'Keys' })).body.data.id;
    const created = await s.admin.post(
      `/teams/${teamId}/keys`,
      { name: 'k' },
      { 'idempotency-key': `key-${teamId}` },
    );
    const repeated = await s.admin.post(
      `/teams/${teamId}/keys`,
      { name: 'k' },
      { 'idempotency-key': `key-${teamId}` },
    );
    expect(created.body.data.key).toMatch(/^dr_live_/);
    expect(repeated.body.data).toEqual({ ...created.body.data, key: undefined });
    expect((await s.admin.get(`/teams/${teamId}/keys`)).body.data).toHaveLength(1);
    const [stored] = await s.db.query<{ result: unknown }>(
      'SELECT result FROM idempotency_keys WHERE key = $1',
      [`key-${teamId}`],
    );
    expect(JSON.stringify(stored?.result)).not.toContain(created.body.data.key);

    // After 24 hours the key is free again.
    s.clock.advance(24 * 3600_000 + 1);
    const later = await s.admin.post(`/links/${linkId}/views`, body, headers);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
});

import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, managedRoom, recordedEvents, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';

const MINUTE = 60_000;
const UNSTORABLE = ['a\u0000b', 'x\uD800y', 'x\uDC00', '\uDBFF'];

describe.each(storeKinds())('odd input to the management API (%s store)', (kind) => {
  const s = useManagement(kind);

  async function setup() {
    s.clock.advance(MINUTE);
    return managedRoom(s.admin, { team: 'Odd', room: 'Room', link: 'Link' });
  }

  it('refuses U+0000 and unpaired surrogates in any string with a 400 naming the field', async () => {
    const { teamId, roomId, documentId, linkId } = await setup();
    for (const text of UNSTORABLE) {
      const cases: [string, string, unknown, string][] = [
        ['/teams', 'POST', { name: text }, 'name'],
        [`/teams/${teamId}/deal-rooms`, 'POST', { name: text }, 'name'],
        [`/deal-rooms/${roomId}`, 'PATCH', { description: text }, 'description'],
        [`/teams/${teamId}/keys`, 'POST', { name: text }, 'name'],
        [`/deal-rooms/${roomId}/links`, 'POST', { name: 'L', password: text }, 'password'],
        [
          `/links/${linkId}/views`,
          'POST',
          { documentId, viewer: { email: `${text}@example.com` } },
          'viewer.email',
        ],
        [`/links/${linkId}/visits`, 'POST', { viewer: { visitorId: text } }, 'viewer.visitorId'],
      ];
      for (const [url, method, body, field] of cases) {
        const res = await s.admin.call(method as 'POST', url, body);
        expect({ url, status: res.status, body: res.body }).toEqual({
          url,
          status: 400,
          body: {
            error: `${field} must not contain U+0000 or an unpaired surrogate`,
            code: 'validation_error',
          },
        });
      }
    }
  });

  it('refuses names that reverse how text is shown, a viewer’s name included', async () => {
    const { teamId, roomId, linkId, documentId } = await setup();
    const cases: [string, unknown, string][] = [
      [`/teams/${teamId}/deal-rooms`, { name: 'Deck\u202Efdp.exe' }, 'name'],
      [`/deal-rooms/${roomId}/links`, { name: 'Investors \u2067x' }, 'name'],
      [
        `/links/${linkId}/views`,
        { documentId, viewer: { email: 'a@b.example', name: 'Ann\u202E' } },
        'viewer.name',
      ],
    ];
    for (const [url, body, field] of cases) {
      const res = await s.admin.post(url, body);
      expect({ body, status: res.status, code: res.body.code }).toEqual({
        body,
        status: 400,
        code: 'validation_error',
      });
      expect(res.body.error).toMatch(new RegExp(`^${field.replace('.', '\\.')}`));
    }
  });

  it('refuses poisoned view starts alone, before they join a batch', async () => {
    const { linkId, documentId } = await setup();
    const starts = Array.from({ length: 30 }, (_, i) => ({
      documentId,
      viewer: { visitorId: i % 10 === 3 ? `bad\u0000${i}` : `visitor-${i}` },
    }));
    const answers = await Promise.all(starts.map((body) => s.admin.post(`/links/${linkId}/views`, body)));
    expect(answers.map((a) => a.status)).toEqual(starts.map((_, i) => (i % 10 === 3 ? 400 : 201)));
    const started = (await recordedEvents(s.db)).filter((e) => e.type === 'view.started');
    expect(started).toHaveLength(27);
  });

  it('refuses a timestamp that is no real instant, or before 2000, naming the field', async () => {
    const { roomId, linkId, documentId } = await setup();
    const message = (field: string) => ({
      error: `${field} must be a real instant from 2000-01-01 on, as an ISO 8601 timestamp with a time zone`,
      code: 'validation_error',
    });
    // A day the month does not have is refused by the body's schema already.
    const visit = await s.admin.post(`/links/${linkId}/visits`, {
      viewer: { email: 'a@b.c' },
      at: '2026-02-30T10:00:00Z',
    });
    expect(visit).toMatchObject({
      status: 400,
      body: { error: 'at must be an ISO 8601 timestamp with a time zone', code: 'validation_error' },
    });
    const viewer = { email: 'ava@example.com' };
    const cases: [string, string, unknown, string][] = [
      [
        `/links/${linkId}/views`,
        'POST',
        { documentId, viewer, startedAt: '2026-06-30T23:59:60Z' },
        'startedAt',
      ],
      [`/links/${linkId}/visits`, 'POST', { viewer, at: '2026-06-30T23:59:60+00:00' }, 'at'],
      [`/links/${linkId}/downloads`, 'POST', { documentId, viewer, at: '1999-12-31T23:59:59Z' }, 'at'],
      [
        `/deal-rooms/${roomId}/links`,
        'POST',
        { name: 'Old', expiresAt: '0050-01-01T00:00:00Z' },
        'expiresAt',
      ],
      [`/links/${linkId}`, 'PATCH', { expiresAt: '2026-06-30T23:59:60Z' }, 'expiresAt'],
    ];
    for (const [url, method, body, field] of cases) {
      const res = await s.admin.call(method as 'POST', url, body);
      expect({ url, status: res.status, body: res.body }).toEqual({ url, status: 400, body: message(field) });
    }
    const fine = await s.admin.patch(`/links/${linkId}`, { expiresAt: '2030-01-01T00:00:00+01:00' });
    expect(fine.body.data.expiresAt).toBe('2029-12-31T23:00:00.000Z');
  });

  it('lower-cases ids where they come in: answers and events never echo an upper-case id', async () => {
    const { linkId, documentId } = await setup();
    const viewer = { email: 'ava@example.com' };
    const upper = { documentId: documentId.toUpperCase(), viewer };
    const download = await s.admin.post(`/links/${linkId.toUpperCase()}/downloads`, upper);
    expect(download.status).toBe(201);
    expect(download.body.data).toMatchObject({ linkId, documentId });
    const event = (await recordedEvents(s.db)).filter((e) => e.type === 'download.created').at(-1);
    expect(event?.data).toMatchObject({ linkId, documentId });
    const patched = await s.admin.patch(`/links/${linkId.toUpperCase()}`, {
      documentIds: [documentId.toUpperCase()],
    });
    expect(patched.body.data).toMatchObject({ id: linkId, documentIds: [documentId] });
  });

  it('lists the teams oldest first, and answers nothing without the admin token, its OpenAPI document included', async () => {
    const first = (await s.admin.post('/teams', { name: 'First' })).body.data;
    s.clock.advance(MINUTE);
    const second = (await s.admin.post('/teams', { name: 'Second' })).body.data;
    const teams = (await s.admin.get('/teams')).body.data as { id: string }[];
    const ours = teams.filter((t) => t.id === first.id || t.id === second.id);
    expect(ours).toEqual([first, second]);
    const bare = await s.admin.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(bare.statusCode).toBe(401);
    expect(bare.json()).toEqual({ error: 'Admin token is required', code: 'unauthorized' });
    expect((await s.admin.get('/openapi.json')).status).toBe(200);
  });

  it('keys the Idempotency-Key fingerprint with a server secret: a database reader cannot test password guesses', async () => {
    const { roomId } = await setup();
    const key = `link-${roomId}`;
    const url = `/deal-rooms/${roomId}/links`;
    const body = { name: 'Secret', password: 'correct horse battery staple' };
    expect((await s.admin.post(url, body, { 'idempotency-key': key })).status).toBe(201);
    const [row] = await s.db.query<{ fingerprint: string }>(
      'SELECT fingerprint FROM idempotency_keys WHERE key = $1',
      [key],
    );
    const request = `POST ${url}\n${JSON.stringify(body)}`;
    expect(row?.fingerprint).not.toBe(createHash('sha256').update(request).digest('hex'));
    expect(row?.fingerprint).toBe(createHmac('sha256', ADMIN_TOKEN).update(request).digest('hex'));
    // A repeat is still recognised, and another body under the same key still refused.
    expect((await s.admin.post(url, body, { 'idempotency-key': key })).status).toBe(201);
    expect(
      (await s.admin.post(url, { ...body, password: 'another guess' }, { 'idempotency-key': key })).status,
    ).toBe(409);
  });
});

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { testWebApp } from '../testing/app.ts';
import { managementClient, putFile } from '../testing/management.ts';
import { openTestStore } from '../testing/stores.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';
import { createLinkPageLimiter } from './limits.ts';

describe('link page limits', () => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  let shortId: string;
  let documentId: string;
  beforeAll(async () => {
    db = await openTestStore('embedded');
    const startView = createViewStartWriter();
    admin = await managementClient(db, clock, createMetrics(), { startView });
    const metrics = createMetrics();
    web = await testWebApp(db, clock, {
      metrics,
      startView,
      linkLimiter: createLinkPageLimiter(
        { pagesPerMinute: 8, viewsPerMinute: 3, reportsPerMinute: 4, newVisitorsPerHour: 5 },
        { logger: pino({ level: 'silent' }), metrics },
      ),
    });
    const team = (await admin.post('/teams', { name: 'Limits' })).body.data.id as string;
    const room = (await admin.post(`/teams/${team}/deal-rooms`, { name: 'Room' })).body.data.id as string;
    documentId = (await admin.post(`/deal-rooms/${room}/documents`, { name: 'Deck', status: 'published' }))
      .body.data.id as string;
    await putFile(admin, documentId, await numberedPdf(1), 'application/pdf');
    shortId = (await admin.post(`/deal-rooms/${room}/links`, { name: 'Open' })).body.data.shortId as string;
  });
  afterAll(async () => {
    await web?.close();
    await admin?.app.close();
    await db?.close();
  });

  const get = (url: string, cookie: string, address = '198.51.100.1') =>
    web.inject({ url, remoteAddress: address, headers: { cookie } });
  const cookiesOf = (response: { headers: Record<string, unknown> }) =>
    [response.headers['set-cookie']]
      .flat()
      .filter((line): line is string => typeof line === 'string')
      .map((line) => line.split(';')[0])
      .join('; ');

  it('refuses a visitor past its view starts in a minute with a 429 page and Retry-After, then lets it in again', async () => {
    const first = await get(`/v/${shortId}`, '', '198.51.100.20');
    const cookie = cookiesOf(first);
    const views = [];
    for (let i = 0; i < 4; i++)
      views.push(await get(`/v/${shortId}/d/${documentId}`, cookie, '198.51.100.20'));
    expect(views.map((v) => v.statusCode)).toEqual([200, 200, 200, 429]);
    expect(Number(views[3]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(views[3]?.body).toContain('Too many requests');
    const started = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM views');
    expect(started[0]?.n).toBe(3);
    clock.advance(61_000);
    expect((await get(`/v/${shortId}/d/${documentId}`, cookie, '198.51.100.20')).statusCode).toBe(200);
  });

  it('counts requests without a visitor cookie as new visitors of their address: the sixth in an hour is refused', async () => {
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push((await get(`/v/${shortId}`, '', '198.51.100.30')).statusCode);
    expect(answers).toEqual([200, 200, 200, 200, 200, 429]);
    // Another address is not held back.
    expect((await get(`/v/${shortId}`, '', '198.51.100.31')).statusCode).toBe(200);
  });
});

import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { testWebApp } from '../testing/app.ts';
import { managementClient } from '../testing/management.ts';
import { openTestStore } from '../testing/stores.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';
import { inviteUser } from '../users/commands.ts';

describe('request logs', () => {
  let db: Database;
  let admin: Awaited<ReturnType<typeof managementClient>>;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const lines: string[] = [];
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  beforeAll(async () => {
    db = await openTestStore('embedded');
    const startView = createViewStartWriter();
    admin = await managementClient(db, clock, createMetrics(), { startView });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    web = await testWebApp(db, clock, { logger: pino({ level: 'debug' }, sink), startView });
  });
  afterAll(async () => {
    await web?.close();
    await admin?.app.close();
    await db?.close();
  });

  it('never write a share link’s short id or an invitation’s token, and keep the rest of the address', async () => {
    const team = (await admin.post('/teams', { name: 'Logs' })).body.data.id as string;
    const room = (await admin.post(`/teams/${team}/deal-rooms`, { name: 'Room' })).body.data.id as string;
    const link = (
      await admin.post(`/deal-rooms/${room}/links`, { name: 'Secret link', shortId: 'very-secret-short-id' })
    ).body.data as { shortId: string };
    const invitation = await inviteUser(
      { db, clock, appUrl: '' },
      { teamId: team, email: 'new@logs.example', role: 'member' },
    );
    const token = invitation.path.split('/').at(-1) as string;
    expect((await web.inject({ url: `/v/${link.shortId}?from=mail` })).statusCode).toBe(200);
    expect((await web.inject({ url: invitation.path })).statusCode).toBe(200);
    expect((await web.inject({ url: '/login' })).statusCode).toBe(200);
    const logged = lines.join('');
    expect(logged).not.toContain(link.shortId);
    expect(logged).not.toContain(token);
    expect(logged).toContain('"url":"/v/…?from=mail"');
    expect(logged).toContain('"url":"/invite/…"');
    expect(logged).toContain('"url":"/login"');
  });
});

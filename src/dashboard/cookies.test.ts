import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { createTeam } from '../teams/commands.ts';
import { testWebApp } from '../testing/app.ts';
import { openTestStore } from '../testing/stores.ts';
import { acceptInvitation, inviteUser } from '../users/commands.ts';

// Served over https (APP_URL), as in production.
describe('dashboard sessions over https', () => {
  let db: Database;
  let web: Awaited<ReturnType<typeof testWebApp>>;
  const clock = new ManualClock('2026-05-20T12:00:00.000Z');
  beforeAll(async () => {
    db = await openTestStore('embedded');
    web = await testWebApp(db, clock, { appUrl: 'https://rooms.example' });
  });
  afterAll(async () => {
    await web?.close();
    await db?.close();
  });

  const signedIn = async () => {
    const ctx = { db, clock, appUrl: '' };
    const team = await createTeam(ctx, { name: 'Secure' });
    const invitation = await inviteUser(ctx, {
      teamId: team.id,
      email: `o${Date.now()}@secure.example`,
      role: 'owner',
    });
    const secret = invitation.path.split('/').at(-1) as string;
    return acceptInvitation(ctx, secret, 'a long enough password', {
      userAgent: 'test',
      address: '192.0.2.1',
    });
  };
  const rooms = (cookie: string) => web.inject({ url: '/app/rooms', headers: { cookie } });

  it('names its cookies with the __Host- prefix, and reads no other name', async () => {
    const login = await web.inject({ url: '/login' });
    expect(String(login.headers['set-cookie'])).toMatch(/^__Host-dr_form=[^;]+;.*Path=\/;.*Secure/);
    const { token } = await signedIn();
    expect((await rooms(`__Host-dr_user=${token}`)).statusCode).toBe(200);
    // The same value under a name any subdomain could have set is not a session.
    expect((await rooms(`dr_user=${token}`)).statusCode).toBe(303);
  });

  it('ends a session left unused for 12 hours', async () => {
    const { token } = await signedIn();
    expect((await rooms(`__Host-dr_user=${token}`)).statusCode).toBe(200);
    clock.advance(11 * 60 * 60 * 1000);
    expect((await rooms(`__Host-dr_user=${token}`)).statusCode).toBe(200);
    clock.advance(12 * 60 * 60 * 1000 + 60_000);
    const idle = await rooms(`__Host-dr_user=${token}`);
    expect(idle.statusCode).toBe(303);
    expect(idle.headers.location).toBe('/login?next=%2Fapp%2Frooms');
  });
});

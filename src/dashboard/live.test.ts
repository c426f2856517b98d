import { get as httpGet, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../core/clock.ts';
import { testWebApp } from '../testing/app.ts';
import { managedRoom, useManagement } from '../testing/management.ts';
import { until } from '../testing/receiver.ts';
import { storeKinds } from '../testing/stores.ts';
import { acceptInvitation, inviteUser } from '../users/commands.ts';
import { writeContexts } from '../write/context.ts';
import { userCookieName } from './auth.ts';

describe.each(storeKinds())('the live feeds (%s store)', (kind) => {
  // Real time: the feed's delay is what is measured.
  const s = useManagement(kind, new Date().toISOString());
  let web: Awaited<ReturnType<typeof testWebApp>>;
  let base: string;

  beforeAll(async () => {
    s.clock.set(systemClock.now());
    web = await testWebApp(s.db, systemClock);
    base = await web.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await web?.close();
  });

  /**
   * Reads an event stream, keeping each `activity` event's data with the time it arrived, on a
   * connection of its own that `stop` closes. (Through fetch, aborting the streams left its pool
   * opening connections it never used, and the app's close waited 4 s for it to drop them.)
   */
  async function listen(url: string, cookie: string) {
    const events: { at: number; data: { data: { kind: string; who: string; room?: string }[] } }[] = [];
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      httpGet(url, { headers: { cookie }, agent: false }, resolve).on('error', reject),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    response.setEncoding('utf8');
    let buffer = '';
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (/^event: activity$/m.test(block) && data) events.push({ at: Date.now(), data: JSON.parse(data) });
        end = buffer.indexOf('\n\n');
      }
    });
    response.on('error', () => undefined);
    return { events, stop: () => response.destroy() };
  }

  it("pushes a view to the room's overview and to the team's Activity page within a second of its commit", async () => {
    const { teamId, roomId, documentId, linkId } = await managedRoom(s.admin, {
      team: 'Live',
      room: 'Feed room',
      link: 'Buyers',
    });
    const writes = writeContexts({ db: s.db, clock: systemClock, appUrl: '' });
    const invitation = await inviteUser(writes(), { teamId, email: 'watcher@live.example', role: 'member' });
    const session = await acceptInvitation(
      writes(),
      invitation.path.slice('/invite/'.length),
      'correct horse battery',
      {
        address: '127.0.0.1',
        userAgent: 'test',
      },
    );
    const cookie = `${userCookieName(false)}=${session.token}`;
    const room = await listen(`${base}/app/rooms/${roomId}/live`, cookie);
    const team = await listen(`${base}/app/activity/live`, cookie);
    await until(() => room.events.length === 1 && team.events.length === 1, 'the feeds as they are');
    expect(room.events[0]?.data.data).toEqual([]);

    const view = await s.admin.post(`/links/${linkId}/views`, {
      documentId,
      viewer: { email: 'live@buyer.example' },
    });
    const committed = Date.now();
    expect(view.status).toBe(201);
    await until(() => room.events.length >= 2 && team.events.length >= 2, 'the view pushed', 5000);
    const pushed = room.events[1] as (typeof room.events)[number];
    expect(pushed.data.data[0]).toMatchObject({ kind: 'view', who: 'live@buyer.example' });
    expect(pushed.at - committed).toBeLessThan(1000);
    expect(team.events[1]?.data.data[0]).toMatchObject({ kind: 'view', room: 'Feed room' });

    // Another team's activity reaches neither.
    const other = await managedRoom(s.admin, { team: 'Other', room: 'Elsewhere', link: 'L' });
    await s.admin.post(`/links/${other.linkId}/views`, {
      documentId: other.documentId,
      viewer: { email: 'x@else.example' },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(room.events).toHaveLength(2);
    expect(team.events).toHaveLength(2);
    room.stop();
    team.stop();

    // The page itself: the feed, with the stream to follow.
    const page = await fetch(`${base}/app/activity`, { headers: { cookie } });
    const body = await page.text();
    expect(body).toContain('data-stream="/app/activity/live"');
    expect(body).toContain('live@buyer.example');
  });
});

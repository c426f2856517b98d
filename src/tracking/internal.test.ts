import { describe, expect, it } from 'vitest';
import { managedRoom, recordedEvents, useManagement } from '../testing/management.ts';
import { expectFiguresMatch } from '../testing/recompute.ts';
import { storeKinds } from '../testing/stores.ts';
import { inviteUser } from '../users/commands.ts';
import { writeContexts } from '../write/context.ts';

describe.each(storeKinds())("the team's own visits (%s store)", (kind) => {
  const s = useManagement(kind);

  it('keeps a team setting of internal domains: @domain entries only, kept lower-case and ASCII; a timezone Intl knows', async () => {
    const teamId = (await s.admin.post('/teams', { name: 'Settings' })).body.data.id as string;
    const saved = await s.admin.patch(`/teams/${teamId}`, {
      timezone: 'america/new_york',
      internalDomains: ['@Team.Example', '@bücher.example', '@team.example'],
    });
    expect(saved.status).toBe(200);
    expect(saved.body.data).toMatchObject({
      timezone: 'America/New_York',
      internalDomains: ['@team.example', '@xn--bcher-kva.example'],
    });
    const email = await s.admin.patch(`/teams/${teamId}`, {
      internalDomains: ['@team.example', 'ann@team.example'],
    });
    expect(email.status).toBe(400);
    expect(email.body.error).toContain('internalDomains.1');
    const zone = await s.admin.patch(`/teams/${teamId}`, { timezone: 'Mars/Olympus_Mons' });
    expect(zone.status).toBe(400);
    expect(zone.body.error).toContain('timezone');
    const other = await s.admin.patch('/teams/6f9619ff-8b86-4d11-b42d-00c04fc964ff', { timezone: 'UTC' });
    expect(other.status).toBe(404);
  });

  it("records the visits, views and downloads of the team's users and internal domains as internal: no figure, no viewer, no event", async () => {
    const { teamId, key, roomId, documentId, linkId } = await managedRoom(s.admin, {
      team: 'Own team',
      room: 'Sale',
      link: 'Buyers',
    });
    await s.admin.patch(`/teams/${teamId}`, { internalDomains: ['@advisers.example'] });
    const write = writeContexts({ db: s.db, clock: s.clock, appUrl: '' });
    await inviteUser(write(), { teamId, email: 'Owner@Own.example', role: 'owner' });
    const before = (await recordedEvents(s.db)).at(-1)?.id;

    const insiders = [{ email: 'OWNER@own.example' }, { email: 'kim@Advisers.example', name: 'Kim' }];
    const outsider = { email: 'cfo@buyer.example', name: 'Carla' };
    const viewIds: string[] = [];
    for (const viewer of [...insiders, outsider]) {
      s.clock.advance(60_000);
      expect((await s.admin.post(`/links/${linkId}/visits`, { viewer })).status).toBe(201);
      const view = await s.admin.post(`/links/${linkId}/views`, { documentId, viewer });
      expect(view.status).toBe(201);
      viewIds.push(view.body.data.id as string);
      expect(
        (await s.admin.post(`/views/${view.body.data.id}/complete`, { durationSeconds: 30 })).status,
      ).toBe(200);
      expect((await s.admin.post(`/links/${linkId}/downloads`, { documentId, viewer })).status).toBe(201);
    }

    // The rows are there, marked.
    const views = await s.db.query<{ id: string; internal: boolean }>(
      'SELECT id, internal FROM views WHERE deal_room_id = $1 ORDER BY started_at',
      [roomId],
    );
    expect(views.map((v) => v.internal)).toEqual([true, true, false]);
    const visits = await s.db.query<{ internal: boolean }>(
      'SELECT internal FROM visits WHERE deal_room_id = $1 ORDER BY at',
      [roomId],
    );
    expect(visits.map((v) => v.internal)).toEqual([true, true, false]);

    // The read API counts the outsider alone.
    const analytics = await s.api.get(`/v1/deal-rooms/${roomId}/analytics?period=all`, key);
    expect(analytics.body.data).toMatchObject({ totalViews: 1, uniqueViewers: 1, totalDownloads: 1 });
    const viewers = await s.api.get(`/v1/deal-rooms/${roomId}/viewers`, key);
    expect(viewers.body.data.map((v: { email: string }) => v.email)).toEqual(['cfo@buyer.example']);
    const links = await s.api.get(`/v1/deal-rooms/${roomId}/links`, key);
    expect(links.body.data[0].totalClicks).toBe(1);
    const room = await s.api.get(`/v1/deal-rooms/${roomId}`, key);
    expect(room.body.data).toMatchObject({ totalViews: 1, uniqueViewers: 1 });

    // No event names an insider's view.
    const events = await recordedEvents(s.db, before);
    const about = (id: string) => events.filter((e) => JSON.stringify(e.data).includes(id));
    expect(about(viewIds[0] as string)).toEqual([]);
    expect(about(viewIds[1] as string)).toEqual([]);
    expect(
      about(viewIds[2] as string)
        .map((e) => e.type)
        .sort(),
    ).toEqual(['view.completed', 'view.started']);
    expect(events.filter((e) => e.type.startsWith('download.')).length).toBe(1);
    expect(events.filter((e) => e.type === 'viewer.created').length).toBe(1);
    expect(JSON.stringify(events)).not.toContain('advisers.example');
    expect(JSON.stringify(events).toLowerCase()).not.toContain('owner@own.example');

    // Every kept figure still equals a recomputation, also once the link and its events are gone.
    await expectFiguresMatch(s, key, teamId, [roomId]);
    expect((await s.admin.del(`/links/${linkId}`)).status).toBe(204);
    await expectFiguresMatch(s, key, teamId, [roomId]);
  });
});

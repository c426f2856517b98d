import { describe, expect, it } from 'vitest';
import { TEST_APP_URL } from '../testing/app.ts';
import { load, make, roomWithKey, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';

describe.each(storeKinds())('links (%s store)', (kind) => {
  const s = useApi(kind); // now: 2026-05-20T12:00:00.000Z

  it('renders url, isActive, requiresPassword and all-time clicks; never the password', async () => {
    const { key, room, roomId } = await roomWithKey(s.db, s.clock);
    const open = make.link(roomId, {
      name: 'Open',
      shortId: 'open-1',
      createdAt: '2026-01-15T00:00:00.000Z',
      password: 'hunter2',
      requiresEmail: false,
    });
    const disabled = make.link(roomId, {
      name: 'Disabled',
      enabled: false,
      createdAt: '2026-01-14T00:00:00.000Z',
    });
    const expired = make.link(roomId, {
      name: 'Expired',
      expiresAt: '2026-05-20T12:00:00.000Z',
      createdAt: '2026-01-13T00:00:00.000Z',
    });
    const future = make.link(roomId, {
      name: 'Future',
      expiresAt: '2026-05-20T12:00:01.000Z',
      createdAt: '2026-01-12T00:00:00.000Z',
    });
    const viewer = { email: 'a@b.co' };
    await load(s.db, s.clock, {
      dealRooms: [room],
      links: [disabled, expired, open, future],
      visits: [
        make.visit(open.id as string, viewer, '2025-12-01T00:00:00Z'),
        make.visit(open.id as string, viewer, '2026-05-20T11:00:00Z'),
        make.visit(future.id as string, { visitorId: 'x' }, '2026-05-01T00:00:00Z'),
      ],
    });

    const res = await s.api.get(`/v1/deal-rooms/${roomId}/links`, key);
    expect(res.status).toBe(200);
    expect(res.body.data.map((l: { name: string }) => l.name)).toEqual([
      'Open',
      'Disabled',
      'Expired',
      'Future',
    ]);
    expect(res.body.data[0]).toEqual({
      id: open.id,
      name: 'Open',
      shortId: 'open-1',
      url: `${TEST_APP_URL}/v/open-1`,
      isActive: true,
      requiresEmail: false,
      requiresPassword: true,
      expiresAt: null,
      totalClicks: 2,
      createdAt: '2026-01-15T00:00:00.000Z',
    });
    expect(res.body.data.map((l: { isActive: boolean }) => l.isActive)).toEqual([true, false, false, true]);
    expect(res.body.data.map((l: { requiresPassword: boolean }) => l.requiresPassword)).toEqual([
      true,
      false,
      false,
      false,
    ]);
    expect(res.body.data[3]).toMatchObject({
      expiresAt: '2026-05-20T12:00:01.000Z',
      totalClicks: 1,
    });
    expect(res.raw).not.toMatch(/hunter2|scrypt|password"/);
    expect((await s.api.get(`/v1/deal-rooms/${roomId}`, key)).body.data.linkCount).toBe(4);
  });

  it('breaks created-at ties by id', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const b = make.link(room.id as string, { id: '00000000-0000-4000-8000-00000000000b' });
    const a = make.link(room.id as string, { id: '00000000-0000-4000-8000-00000000000a' });
    await load(s.db, s.clock, { dealRooms: [room], links: [b, a] });
    const res = await s.api.get(`/v1/deal-rooms/${room.id}/links`, key);
    expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([a.id, b.id]);
  });
});

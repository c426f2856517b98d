import { describe, expect, it } from 'vitest';
import { load, make, roomWithKey, teamWithKey } from '../testing/fixtures.ts';
import { storeKinds } from '../testing/stores.ts';
import { useApi } from '../testing/suite.ts';

describe.each(storeKinds())('documents (%s store)', (kind) => {
  const s = useApi(kind);

  it('lists only published documents, by position then id, with every field', async () => {
    const { key, room, roomId } = await roomWithKey(s.db, s.clock);
    const second = make.document(roomId, {
      name: 'Deck.pdf',
      position: 2,
      displayName: 'Pitch deck',
      sourceType: 'google_drive',
      pageCount: 30,
    });
    const firstB = make.document(roomId, {
      id: '00000000-0000-4000-8000-0000000000bb',
      position: 1,
    });
    const firstA = make.document(roomId, {
      id: '00000000-0000-4000-8000-0000000000aa',
      position: 1,
    });
    const draft = make.document(roomId, { position: 0, status: 'draft' });
    const archived = make.document(roomId, { position: 0, status: 'archived' });
    await load(s.db, s.clock, {
      dealRooms: [room],
      documents: [second, draft, firstB, archived, firstA],
    });

    const res = await s.api.get(`/v1/deal-rooms/${roomId}/documents`, key);
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: { id: string }) => d.id)).toEqual([firstA.id, firstB.id, second.id]);
    expect(res.body.data[2]).toEqual({
      id: second.id,
      name: 'Deck.pdf',
      displayName: 'Pitch deck',
      sourceType: 'google_drive',
      pageCount: 30,
      status: 'published',
      position: 2,
      createdAt: '2026-01-10T09:00:00.000Z',
      updatedAt: '2026-01-10T09:00:00.000Z',
    });
    expect(res.body.data[0].displayName).toBeNull();
    expect(res.body.meta.pagination).toEqual({ page: 1, perPage: 20, total: 3, totalPages: 1 });
    const detail = await s.api.get(`/v1/deal-rooms/${roomId}`, key);
    expect(detail.body.data.documentCount).toBe(3);
  });

  it('pages by position', async () => {
    const { teamId, key } = await teamWithKey(s.db, s.clock);
    const room = make.room(teamId);
    const docs = Array.from({ length: 5 }, (_, i) => make.document(room.id as string, { position: 5 - i }));
    await load(s.db, s.clock, { dealRooms: [room], documents: docs });
    const page2 = await s.api.get(`/v1/deal-rooms/${room.id}/documents?per_page=2&page=2`, key);
    expect(page2.body.data.map((d: { position: number }) => d.position)).toEqual([3, 4]);
    expect(page2.body.meta.pagination).toEqual({ page: 2, perPage: 2, total: 5, totalPages: 3 });
  });

  it("answers 404 for another team's room", async () => {
    const { key } = await teamWithKey(s.db, s.clock);
    const other = await teamWithKey(s.db, s.clock);
    const room = make.room(other.teamId);
    await load(s.db, s.clock, { dealRooms: [room], documents: [make.document(room.id as string)] });
    for (const suffix of ['documents', 'links', 'viewers', 'analytics']) {
      const res = await s.api.get(`/v1/deal-rooms/${room.id}/${suffix}`, key);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Deal room not found', code: 'not_found' });
    }
  });
});

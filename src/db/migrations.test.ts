import { describe, expect, it } from 'vitest';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { loadMigrations, migrate } from './migrate.ts';

const TEAM = '00000000-0000-4000-8000-000000000001';
const KEPT = '00000000-0000-4000-8000-0000000000a1';
const GONE = '00000000-0000-4000-8000-0000000000a2';
const DOCUMENT = '00000000-0000-4000-8000-0000000000d1';

describe.each(storeKinds())('migrations over existing data (%s store)', (kind) => {
  it('008 gives every earlier event its room, and marks those of rooms deleted before it for removal', async () => {
    const all = loadMigrations();
    const at = all.findIndex((m) => m.name === '008_deleted_room_events');
    const db = await openTestStore(kind, {}, all.slice(0, at));
    try {
      await db.query(`INSERT INTO teams (id, name, created_at) VALUES ($1, 'T', now())`, [TEAM]);
      await db.query(
        `INSERT INTO deal_rooms (id, team_id, name, status, created_at, updated_at)
         VALUES ($1, $2, 'Kept', 'active', now(), now())`,
        [KEPT, TEAM],
      );
      await db.query(
        `INSERT INTO documents (id, deal_room_id, name, source_type, page_count, status, position, created_at, updated_at)
         VALUES ($1, $2, 'Deck.pdf', 'upload', 3, 'published', 1, now(), now())`,
        [DOCUMENT, KEPT],
      );
      const events: [string, string, Record<string, unknown>][] = [
        ['00000000-0000-7000-8000-000000000001', 'deal_room.created', { id: KEPT }],
        ['00000000-0000-7000-8000-000000000002', 'document.created', { id: DOCUMENT }],
        ['00000000-0000-7000-8000-000000000003', 'view.started', { id: 'v', dealRoomId: KEPT }],
        ['00000000-0000-7000-8000-000000000004', 'viewer.created', { email: 'a@x.test', dealRoomId: GONE }],
        ['00000000-0000-7000-8000-000000000005', 'deal_room.deleted', { id: GONE }],
      ];
      for (const [id, type, data] of events) {
        await db.query(
          `INSERT INTO webhook_events (id, team_id, type, payload, created_at) VALUES ($1, $2, $3, $4, now())`,
          [id, TEAM, type, JSON.stringify({ id, type, teamId: TEAM, data })],
        );
      }
      expect(await migrate(db, all)).toEqual(all.slice(at).map((m) => m.name));
      const rows = await db.query<{ type: string; deal_room_id: string | null; room_deleted: boolean }>(
        'SELECT type, deal_room_id, room_deleted FROM webhook_events ORDER BY id',
      );
      expect(rows).toEqual([
        { type: 'deal_room.created', deal_room_id: KEPT, room_deleted: false },
        { type: 'document.created', deal_room_id: KEPT, room_deleted: false },
        { type: 'view.started', deal_room_id: KEPT, room_deleted: false },
        { type: 'viewer.created', deal_room_id: GONE, room_deleted: true },
        { type: 'deal_room.deleted', deal_room_id: GONE, room_deleted: false },
      ]);
    } finally {
      await db.close();
    }
  });
});

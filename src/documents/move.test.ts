import { describe, expect, it } from 'vitest';
import { managedRoom, recordedEvents, useManagement } from '../testing/management.ts';
import { storeKinds } from '../testing/stores.ts';
import { writeContexts } from '../write/context.ts';
import { moveDocument } from './commands.ts';

describe.each(storeKinds())('moving a document (%s store)', (kind) => {
  const s = useManagement(kind);

  it('moves it one place, numbering the order anew, with an event per document whose place changed', async () => {
    const { roomId, documentId: first } = await managedRoom(s.admin, { team: 'T', room: 'R', link: 'L' });
    const add = async (name: string, position: number) => {
      const id = (await s.admin.post(`/deal-rooms/${roomId}/documents`, { name })).body.data.id as string;
      await s.db.query('UPDATE documents SET position = $2 WHERE id = $1', [id, position]);
      return id;
    };
    await s.db.query('UPDATE documents SET position = 0 WHERE id = $1', [first]);
    const second = await add('Second', 7);
    const third = await add('Third', 9);
    const order = async () =>
      (
        await s.db.query<{ id: string; position: number }>(
          'SELECT id, position FROM documents WHERE deal_room_id = $1 ORDER BY position, created_at, id',
          [roomId],
        )
      ).map((d) => [d.id, d.position]);
    const ctx = writeContexts({ db: s.db, clock: s.clock, appUrl: '' })();
    const updates = async () =>
      (await recordedEvents(s.db)).filter((e) => e.type === 'document.updated').map((e) => e.data.id);

    const moved = await moveDocument(ctx, third, 'up');
    expect(await order()).toEqual([
      [first, 0],
      [third, 1],
      [second, 2],
    ]);
    expect(moved.moved).toEqual([
      { id: third, before: 9, after: 1 },
      { id: second, before: 7, after: 2 },
    ]);
    expect((await updates()).sort()).toEqual([second, third].sort());

    // At the top, moving up changes nothing and raises nothing.
    expect((await moveDocument(ctx, first, 'up')).moved).toEqual([]);
    expect(await updates()).toHaveLength(2);
  });
});

import { describe, expect, it } from 'vitest';
import { DatabaseBusyError } from '../db/database.ts';
import { type Settled, WriteBatcher } from './batch.ts';

interface Item {
  name: string;
  keys?: string[];
  fails?: 'item' | 'statement' | 'busy';
}

/** A batcher whose "transaction" records each batch and settles items as they ask. */
function recording(maxItems = 100) {
  const batches: string[][] = [];
  let release: () => void = () => undefined;
  let gate = Promise.resolve();
  const batcher = new WriteBatcher<Item, string>(
    async (items): Promise<Settled<string>[]> => {
      batches.push(items.map((i) => i.name));
      await gate;
      if (items.length > 0 && items.some((i) => i.fails === 'busy')) throw new DatabaseBusyError();
      if (items.some((i) => i.fails === 'statement')) throw new Error('a statement failed');
      return items.map((i) =>
        i.fails === 'item'
          ? { ok: false, error: new Error(`refused ${i.name}`) }
          : { ok: true, value: `done ${i.name}` },
      );
    },
    { maxItems, exclusiveKeys: (item) => item.keys ?? [] },
  );
  return {
    batcher,
    batches,
    /** Holds every batch until released. */
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
    },
    release: () => release(),
  };
}

describe('WriteBatcher', () => {
  it('writes what arrives during a batch together in the next one, in arrival order', async () => {
    const r = recording();
    r.hold();
    const first = r.batcher.submit({ name: 'a' });
    const rest = ['b', 'c', 'd'].map((name) => r.batcher.submit({ name }));
    r.release();
    expect(await Promise.all([first, ...rest])).toEqual(['done a', 'done b', 'done c', 'done d']);
    expect(r.batches).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('keeps an item whose exclusive key is taken for a later batch, and takes at most maxItems', async () => {
    const r = recording(3);
    r.hold();
    const all = [
      r.batcher.submit({ name: 'first' }),
      r.batcher.submit({ name: 'ann-1', keys: ['viewer:ann'] }),
      r.batcher.submit({ name: 'ann-2', keys: ['viewer:ann'] }),
      r.batcher.submit({ name: 'bob', keys: ['viewer:bob', 'key:k1'] }),
      r.batcher.submit({ name: 'k1-again', keys: ['viewer:cy', 'key:k1'] }),
      r.batcher.submit({ name: 'dan' }),
      r.batcher.submit({ name: 'eve' }),
    ];
    r.release();
    await Promise.all(all);
    expect(r.batches).toEqual([['first'], ['ann-1', 'bob', 'dan'], ['ann-2', 'k1-again', 'eve']]);
  });

  it('settles each item on its own: a refused item fails alone', async () => {
    const r = recording();
    r.hold();
    const first = r.batcher.submit({ name: 'a' });
    const refused = r.batcher.submit({ name: 'b', fails: 'item' });
    const third = r.batcher.submit({ name: 'c' });
    r.release();
    await expect(refused).rejects.toThrow('refused b');
    expect([await first, await third]).toEqual(['done a', 'done c']);
  });

  it('runs a batch that failed as a whole again item by item, so only the breaking item fails', async () => {
    const r = recording();
    r.hold();
    const first = r.batcher.submit({ name: 'a' });
    const batch = [
      r.batcher.submit({ name: 'b' }),
      r.batcher.submit({ name: 'poison', fails: 'statement' }),
      r.batcher.submit({ name: 'c' }),
    ];
    r.release();
    await first;
    const settled = await Promise.allSettled(batch);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(r.batches).toEqual([['a'], ['b', 'poison', 'c'], ['b'], ['poison'], ['c']]);
  });

  it('fails a whole batch at once when the database is saturated, without retrying item by item', async () => {
    const r = recording();
    r.hold();
    const first = r.batcher.submit({ name: 'a' });
    const batch = [r.batcher.submit({ name: 'b' }), r.batcher.submit({ name: 'c', fails: 'busy' })];
    r.release();
    await first;
    for (const result of await Promise.allSettled(batch)) {
      expect(result.status === 'rejected' && result.reason).toBeInstanceOf(DatabaseBusyError);
    }
    expect(r.batches).toEqual([['a'], ['b', 'c']]);
  });
});

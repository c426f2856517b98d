import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { BinaryCopy } from './bulk.ts';
import type { Database } from './database.ts';

describe.each(storeKinds())('copyFrom (%s store)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestStore(kind);
    await db.exec('CREATE TEMP TABLE copied (n integer, label text)');
    await db.exec('CREATE TEMP TABLE events (id uuid, n integer, label text, at timestamptz)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('writes every row of chunk after chunk of any size, multi-byte text whole', async () => {
    // Large, then small, then larger again: the embedded store reuses one buffer for them.
    const sizes = [20_000, 3, 0, 50_000, 1];
    const chunk = new BinaryCopy(['int4', 'text']);
    let n = 0;
    const expected: { n: number; label: string }[] = [];
    for (const size of sizes) {
      for (let i = 0; i < size; i++) {
        n++;
        const row = { n, label: n % 2 ? `Zoë ${n} — 東京\tdeal` : `plain ${n}` };
        chunk.add([row.n, row.label]);
        expected.push(row);
      }
      await db.copyFrom('copied', ['n', 'label'], chunk.take());
    }
    const stored = await db.query<{ n: number; label: string }>('SELECT n, label FROM copied ORDER BY n');
    expect(stored).toHaveLength(expected.length);
    expect(stored).toEqual(expected);
  });

  it("writes COPY's binary format: uuids, numbers, any text unescaped, timestamps to the millisecond, nulls", async () => {
    const rows: [string | null, number | null, string | null, Date | null][] = [
      ['00000000-0000-4000-8000-000000000000', 0, '', new Date(Date.UTC(2000, 0, 1))],
      [
        'FFFFFFFF-ffff-4fff-bfff-ABCDEFabcdef',
        -2147483648,
        'a\tb\\c\nd\re \\N',
        new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)),
      ],
      [
        '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0',
        2147483647,
        'Zoë — 東京 🙂',
        new Date(Date.UTC(2026, 10, 28, 17, 45, 1, 7)),
      ],
      ['12345678-9abc-4def-8123-456789abcdef', 7, 'x'.repeat(200_000), new Date(Date.UTC(1970, 0, 1))],
      [null, null, null, null],
    ];
    // A buffer smaller than one row at the start: it grows as rows come, and every chunk is
    // whole on its own.
    const chunk = new BinaryCopy(['uuid', 'int4', 'text', 'timestamptz'], 16);
    for (const row of rows.slice(0, 3)) chunk.add(row);
    expect(chunk.rows).toBe(3);
    await db.copyFrom('events', ['id', 'n', 'label', 'at'], chunk.take());
    expect(chunk.rows).toBe(0);
    for (const row of rows.slice(3)) chunk.add(row);
    await db.copyFrom('events', ['id', 'n', 'label', 'at'], chunk.take());
    const stored = await db.query<{
      id: string | null;
      n: number | null;
      label: string | null;
      at: Date | null;
    }>('SELECT id::text, n, label, at FROM events ORDER BY n NULLS LAST');
    const expected = [rows[1], rows[0], rows[3], rows[2], rows[4]].map((row) => ({
      id: row?.[0]?.toLowerCase() ?? null,
      n: row?.[1] ?? null,
      label: row?.[2] ?? null,
      at: row?.[3] ?? null,
    }));
    expect(stored).toEqual(expected);
  });

  it('refuses what is not a uuid or a timestamp, and leaves the chunk as it was', async () => {
    const chunk = new BinaryCopy(['uuid', 'timestamptz']);
    const good = '0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
    expect(() => chunk.add(['not-a-uuid', null])).toThrow(/not a uuid/);
    expect(() => chunk.add(['0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1fg', null])).toThrow(/not a uuid/);
    expect(() => chunk.add([good, new Date(Number.NaN)])).toThrow(/timestamp/);
    expect(() => chunk.add([good, '2026-01-02T00:00:00Z'])).toThrow(/timestamp/);
    expect(() => chunk.add([7, null])).toThrow(/not a uuid/);
    expect(() => new BinaryCopy(['int4', 'text']).add([1, 2])).toThrow(/not a text/);
    expect(chunk.rows).toBe(0);
    const numbers = new BinaryCopy(['int4']);
    expect(() => numbers.add([2 ** 31])).toThrow(/32-bit integer/);
    expect(() => numbers.add([1.5])).toThrow(/32-bit integer/);
    expect(numbers.rows).toBe(0);
    chunk.add([good, new Date(Date.UTC(2026, 0, 2))]);
    await db.exec('CREATE TEMP TABLE refused (id uuid, at timestamptz)');
    await db.copyFrom('refused', ['id', 'at'], chunk.take());
    expect(await db.query('SELECT id::text, at FROM refused')).toEqual([
      { id: good, at: new Date(Date.UTC(2026, 0, 2)) },
    ]);
  });
});

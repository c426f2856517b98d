import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import type { Database } from './database.ts';

/**
 * Prepared statements (QueryOptions.prepared) on both stores: the same rows as the same
 * statement run unprepared, for every kind of value the repositories send and read, and a
 * statement that fails leaves its transaction rolled back and the statement ready to run again.
 */
describe.each(storeKinds())('prepared statements (%s store)', (kind) => {
  let db: Database;

  beforeAll(async () => {
    db = await openTestStore(kind);
    await db.exec(`CREATE TABLE prepared_probe (
      id uuid PRIMARY KEY, name text, n int NOT NULL, x float8, at timestamptz, doc json, tags text[])`);
  });

  afterAll(async () => {
    await db?.close();
  });

  const ids = ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'];
  const insert = `INSERT INTO prepared_probe (id, name, n, x, at, doc, tags)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::int[], $4::float8[], $5::timestamptz[], $6::json[])
        AS t(id, name, n, x, at, doc), LATERAL (SELECT $7::text[]) tags
    RETURNING id, n`;
  const select = `SELECT id, name, n, x, at, doc, tags, n > $2 AS big, count(*) OVER ()::int AS total
    FROM prepared_probe WHERE id = ANY ($1::uuid[]) ORDER BY id`;

  it('reads and writes every kind of value as an unprepared statement does', async () => {
    const at = new Date('2026-03-01T12:34:56.789Z');
    const inserted = await db.query(
      insert,
      [
        ids,
        ['O\'Brien, "Ann"', null],
        [1, 2],
        [0.5, -1e-7],
        [at, null],
        ['{"a":[1,"x"]}', null],
        ['a b', 'c,d'],
      ],
      { prepared: true },
    );
    expect(inserted).toEqual([
      { id: ids[0], n: 1 },
      { id: ids[1], n: 2 },
    ]);
    for (let round = 0; round < 3; round++) {
      const prepared = await db.query(select, [ids, 1], { prepared: true });
      const plain = await db.query(select, [ids, 1]);
      expect(prepared).toEqual(plain);
      expect(prepared).toEqual([
        {
          id: ids[0],
          name: 'O\'Brien, "Ann"',
          n: 1,
          x: 0.5,
          at,
          doc: { a: [1, 'x'] },
          tags: ['a b', 'c,d'],
          big: false,
          total: 2,
        },
        {
          id: ids[1],
          name: null,
          n: 2,
          x: -1e-7,
          at: null,
          doc: null,
          tags: ['a b', 'c,d'],
          big: true,
          total: 2,
        },
      ]);
    }
    expect(await db.query(select, [[], 0], { prepared: true })).toEqual([]);
  });

  it('fails a statement with its error, rolls its transaction back, and runs it again after', async () => {
    const another = '00000000-0000-4000-8000-000000000003';
    const one = (id: string, n: number) => [[id], ['x'], [n], [1], [new Date()], ['{}'], []];
    const failed = await db
      .transaction(async (tx) => {
        await tx.query(insert, one(another, 3), { prepared: true });
        await tx.query(insert, one(ids[0] as string, 4), { prepared: true });
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect((failed as { code?: string }).code).toBe('23505');
    expect(await db.query(select, [[another], 0], { prepared: true })).toEqual([]);
    await db.transaction(async (tx) => {
      await tx.query(insert, one(another, 3), { prepared: true });
    });
    const [row] = await db.query<{ n: number }>(select, [[another], 0], { prepared: true });
    expect(row?.n).toBe(3);
  });
});

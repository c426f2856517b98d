import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, storeKinds } from '../testing/stores.ts';
import { copyLine } from './bulk.ts';
import type { Database } from './database.ts';

describe('copyLine', () => {
  it("writes one row in COPY's text format, escaping what would end a field or a row", () => {
    expect(copyLine(['a\tb\\c\nd\re', null, undefined, true, false, 3, new Date(0), 'plain'])).toBe(
      'a\\tb\\\\c\\nd\\re\t\\N\t\\N\tt\tf\t3\t1970-01-01T00:00:00.000Z\tplain\n',
    );
  });
});

describe.each(storeKinds())('copyFrom (%s store)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestStore(kind);
    await db.exec('CREATE TEMP TABLE copied (n integer, label text)');
  });
  afterAll(async () => {
    await db?.close();
  });

  it('writes every row of chunk after chunk of any size, multi-byte text whole', async () => {
    // Large, then small, then larger again: the embedded store reuses one buffer for them.
    const sizes = [20_000, 3, 0, 50_000, 1];
    let n = 0;
    const expected: { n: number; label: string }[] = [];
    for (const size of sizes) {
      const rows = Array.from({ length: size }, () => {
        n++;
        return { n, label: n % 2 ? `Zoë ${n} — 東京\tdeal` : `plain ${n}` };
      });
      expected.push(...rows);
      await db.copyFrom('copied', ['n', 'label'], rows.map((row) => copyLine([row.n, row.label])).join(''));
    }
    const stored = await db.query<{ n: number; label: string }>('SELECT n, label FROM copied ORDER BY n');
    expect(stored).toHaveLength(expected.length);
    expect(stored).toEqual(expected);
  });
});

import type { Queryable } from './database.ts';

/** A column of a bulk insert: its name and its PostgreSQL type. */
export type Column = readonly [name: string, type: string];

/**
 * Inserts many rows in one statement: one array parameter per column, zipped by unnest.
 * `rows` are in the columns' order.
 */
export async function insertMany(
  db: Queryable,
  table: string,
  columns: readonly Column[],
  rows: readonly (readonly unknown[])[],
  suffix = '',
): Promise<void> {
  if (rows.length === 0) return;
  const arrays = columns.map((_, i) => rows.map((row) => row[i] ?? null));
  const names = columns.map(([name]) => name).join(', ');
  const params = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  await db.query(`INSERT INTO ${table} (${names}) SELECT * FROM unnest(${params}) ${suffix}`, arrays);
}

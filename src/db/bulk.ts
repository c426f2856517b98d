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

/**
 * Rows in COPY's text format: tab between fields, a newline after each row, \N for null,
 * and backslash escapes for the characters that would otherwise end a field or a row.
 */
export function copyText(rows: readonly (readonly unknown[])[]): string {
  let text = '';
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      if (i > 0) text += '\t';
      text += copyField(row[i]);
    }
    text += '\n';
  }
  return text;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function copyField(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  if (typeof value === 'number') return String(value);
  const text = String(value);
  return /[\\\t\n\r]/.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? c) : text;
}

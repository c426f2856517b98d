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
 * One row in COPY's text format, with its newline: tab between fields, \N for null, and
 * backslash escapes for the characters that would otherwise end a field or a row.
 */
export function copyLine(row: readonly unknown[]): string {
  let line = copyField(row[0]);
  for (let i = 1; i < row.length; i++) line += `\t${copyField(row[i])}`;
  return `${line}\n`;
}

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
/** The characters ESCAPES rewrites; a string with none of them is returned as it is. */
const SPECIAL = /[\\\t\n\r]/g;

function copyField(value: unknown): string {
  if (typeof value === 'string') {
    return value.replace(SPECIAL, (c) => ESCAPES[c] ?? c);
  }
  if (value === null || value === undefined) return '\\N';
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

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
 * The COPY statement that loads a chunk in COPY's binary format (BinaryCopy) into `table` from
 * `source` (STDIN, or PGlite's '/dev/blob').
 */
export function copyFromSql(table: string, columns: readonly string[], source: string): string {
  return `COPY ${table} (${columns.join(', ')}) FROM ${source} WITH (FORMAT binary)`;
}

/** A column type BinaryCopy writes: what an import's event rows hold. */
export type BinaryCopyType = 'uuid' | 'text' | 'timestamptz' | 'int4';

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** PostgreSQL's epoch (2000-01-01 UTC) in Unix milliseconds: binary timestamps count from it. */
const PG_EPOCH_MS = Date.UTC(2000, 0, 1);
/** Each hexadecimal digit's value by character code; -1 elsewhere. */
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/**
 * Rows in COPY's binary format, written straight into one buffer as they come: a uuid is its
 * 16 bytes, a timestamp its microseconds, text its UTF-8 bytes, and nothing is escaped, so
 * neither this process nor the database makes and parses a text for each field. `rows` are in
 * the order of `types`; null or undefined is SQL NULL. `take()` returns the chunk so far, whole
 * (header and trailer), and starts the next.
 */
export class BinaryCopy {
  private buffer: Buffer;
  private at = 0;
  private count = 0;
  /** Where the row being added starts. */
  private rowStart = 0;

  constructor(
    private readonly types: readonly BinaryCopyType[],
    private initialBytes = 64 * 1024,
  ) {
    this.buffer = Buffer.allocUnsafe(initialBytes);
    this.begin();
  }

  /** Rows added since the last take(). */
  get rows(): number {
    return this.count;
  }

  /** Adds one row; a value it cannot write throws (refuse), and leaves the chunk as it was. */
  add(row: readonly unknown[]): void {
    const { types } = this;
    this.rowStart = this.at;
    this.ensure(2);
    this.at = this.buffer.writeInt16BE(types.length, this.at);
    for (let i = 0; i < types.length; i++) {
      const value = row[i];
      if (value === null || value === undefined) {
        this.ensure(4);
        this.at = this.buffer.writeInt32BE(-1, this.at);
        continue;
      }
      switch (types[i]) {
        case 'uuid':
          this.uuid(value as string);
          break;
        case 'text':
          this.text(value as string);
          break;
        case 'timestamptz':
          this.timestamp(value as Date);
          break;
        case 'int4':
          if (!Number.isInteger(value) || (value as number) < -(2 ** 31) || (value as number) >= 2 ** 31) {
            this.refuse(`not a 32-bit integer: ${value}`);
          }
          this.ensure(8);
          this.buffer.writeInt32BE(4, this.at);
          this.at = this.buffer.writeInt32BE(value as number, this.at + 4);
          break;
      }
    }
    this.count++;
  }

  /** Throws, with the row being added taken back out of the chunk. */
  private refuse(message: string): never {
    this.at = this.rowStart;
    throw new TypeError(message);
  }

  /** The rows so far with the format's header and trailer; the next rows start a new chunk. */
  take(): Uint8Array {
    this.ensure(2);
    this.at = this.buffer.writeInt16BE(-1, this.at);
    const chunk = this.buffer.subarray(0, this.at);
    // The chunk may still be on its way to the database: the next rows go to a new buffer,
    // sized for a chunk like this one.
    this.initialBytes = Math.max(this.initialBytes, this.at);
    this.buffer = Buffer.allocUnsafe(this.initialBytes);
    this.begin();
    return chunk;
  }

  private begin(): void {
    this.at = 0;
    this.ensure(SIGNATURE.length + 8);
    this.at = SIGNATURE.copy(this.buffer, 0);
    this.at = this.buffer.writeInt32BE(0, this.at); // flags
    this.at = this.buffer.writeInt32BE(0, this.at); // header extension length
    this.count = 0;
  }

  private uuid(value: string): void {
    if (typeof value !== 'string' || value.length !== 36) this.refuse(`not a uuid: ${value}`);
    this.ensure(20);
    const { buffer } = this;
    let at = buffer.writeInt32BE(16, this.at);
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) i++;
      const high = HEX[value.charCodeAt(i)] ?? -1;
      const low = HEX[value.charCodeAt(i + 1)] ?? -1;
      if (high < 0 || low < 0) this.refuse(`not a uuid: ${value}`);
      buffer[at++] = (high << 4) | low;
    }
    this.at = at;
  }

  private text(value: string): void {
    if (typeof value !== 'string') this.refuse(`not a text: ${typeof value}`);
    this.ensure(4 + value.length * 3);
    const length = this.buffer.write(value, this.at + 4, 'utf8');
    this.buffer.writeInt32BE(length, this.at);
    this.at += 4 + length;
  }

  private timestamp(value: Date): void {
    if (!(value instanceof Date)) this.refuse(`not a timestamp: ${typeof value}`);
    const micros = (value.getTime() - PG_EPOCH_MS) * 1000;
    if (!Number.isSafeInteger(micros)) this.refuse('not a valid timestamp');
    const high = Math.floor(micros / 2 ** 32);
    this.ensure(12);
    this.buffer.writeInt32BE(8, this.at);
    this.buffer.writeInt32BE(high, this.at + 4);
    this.at = this.buffer.writeUInt32BE(micros - high * 2 ** 32, this.at + 8);
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.at + bytes));
    this.buffer.copy(grown, 0, 0, this.at);
    this.buffer = grown;
  }
}

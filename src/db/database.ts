/**
 * The one interface both stores sit behind. Repositories write plain PostgreSQL; the
 * embedded store is PostgreSQL compiled to WebAssembly, so the same SQL serves both.
 * Drivers differ in how they return int8/numeric, so queries cast aggregates to int or
 * float8 explicitly.
 */
export interface Queryable {
  query<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /**
   * Loads rows with COPY: `text` is in COPY's text format (see copyText in bulk.ts), one row
   * a line, in `columns`' order.
   */
  copyFrom(table: string, columns: readonly string[], text: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Connection use so far, for /metrics (PostgreSQL's pool; zeros for the embedded store). */
  poolStats(): PoolStats;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Requests that had to wait for a connection. */
  waits: number;
  /** Requests refused because the wait queue was full or the wait ran out (503s). */
  sheds: number;
  /** Requests waiting now. */
  waiting: number;
}

/** No connection became free within the wait bound: the request is answered 503, not 500. */
export class DatabaseBusyError extends Error {
  constructor() {
    super('no database connection became free in time');
    this.name = 'DatabaseBusyError';
  }
}

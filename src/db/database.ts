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
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

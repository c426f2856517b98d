/**
 * The one interface both stores sit behind. Repositories write plain PostgreSQL; the
 * embedded store is PostgreSQL compiled to WebAssembly, so the same SQL serves both.
 * Drivers differ in how they return int8/numeric, so queries cast aggregates to int or
 * float8 explicitly.
 */
export interface Queryable {
  query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>;
  /** Loads rows with COPY, in `columns`' order: a whole chunk in its binary format (BinaryCopy). */
  copyFrom(table: string, columns: readonly string[], data: Uint8Array): Promise<void>;
}

export interface QueryOptions {
  /**
   * Prepared: PostgreSQL parses and plans the statement once per connection and reuses the
   * plan, under this name (one name, one text) or, with `true`, a name made from its text.
   * For the hottest statements (the link page's, the batches of live tracking), whose best
   * plan does not depend on their parameters and whose text is one of a few. The embedded
   * store keeps them too, by text (pglite-thread.ts).
   */
  prepared?: string | true | undefined;
}

export interface Database extends Queryable {
  readonly kind: 'postgres' | 'embedded';
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /** Connection use so far, for /metrics (PostgreSQL's pool; zeros for the embedded store). */
  poolStats(): PoolStats;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Calls `handler` with the payload of every NOTIFY on `channel` (sent by any process, at its
   * transaction's commit) until the returned function is called.
   */
  listen(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>>;
  /**
   * True when every NOTIFY, whoever sent it, reaches this process's listeners before the
   * commit that sent it returns: the embedded store, where one process runs every statement
   * in one session and its replies come in order. Only then may a process keep rows until a
   * notification says they changed; on PostgreSQL another process's commit is seen at once
   * by a query, but its notification only a moment later.
   */
  readonly notifiesBeforeCommitReturns: boolean;
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

/**
 * No connection became free within the wait bound, or a lock was held past lock_timeout:
 * the request is answered 503 with Retry-After, not 500.
 */
export class DatabaseBusyError extends Error {
  constructor() {
    super('no database connection became free in time');
    this.name = 'DatabaseBusyError';
  }
}

/**
 * The database cannot be reached (refused, dropped, timed out connecting). Still a 500 for
 * the request, but an expected one while the outage lasts: logged once per outage, not once
 * per request.
 */
export class DatabaseUnavailableError extends Error {
  /** `where`: the server's host and port, never its credentials. */
  constructor(
    override readonly cause: unknown,
    where?: string,
  ) {
    const code = (cause as { code?: unknown } | undefined)?.code;
    super(
      `the database${where ? ` at ${where}` : ''} is unreachable${typeof code === 'string' ? ` (${code})` : ''}`,
    );
    this.name = 'DatabaseUnavailableError';
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  // SQLSTATE class 08 (connection exception) and 57P (operator intervention: shutdown).
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
]);

/** Whether a driver error says the database is out of reach, rather than a query failing. */
export function isConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly/i.test(
    err.message,
  );
}

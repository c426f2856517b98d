import { createHash } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { Admission } from './admission.ts';
import { copyFromSql } from './bulk.ts';
import {
  type Database,
  DatabaseBusyError,
  DatabaseUnavailableError,
  isConnectionError,
  type Queryable,
  type QueryOptions,
} from './database.ts';

/** SQLSTATE of a lock wait past lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

export interface PostgresOptions {
  connectionString: string;
  /** Schema to work in (created when missing); tests use one per suite. */
  schema?: string;
  maxConnections?: number;
  /** Requests that may wait for a free connection (default 200); more are refused at once. */
  maxWaiting?: number;
  /** How long a request may wait for a free connection (default 2000 ms). */
  maxWaitMs?: number;
  /** Upper bound for any statement, so a stuck database turns into an error, not a hang. */
  statementTimeoutMs?: number;
  /**
   * Upper bound for a wait on a lock (default two thirds of the statement's): a lock held too
   * long is the database being busy, answered 503 with Retry-After, not a failure.
   */
  lockTimeoutMs?: number;
  /** Told once when the database stops answering, and once when it answers again. */
  onAvailability?: (available: boolean, err?: unknown) => void;
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const searchPath = options.schema ? `-c search_path=${quoteIdent(options.schema)}` : undefined;
  const max = options.maxConnections ?? 10;
  const admission = new Admission({
    slots: max,
    maxWaiting: options.maxWaiting ?? 200,
    maxWaitMs: options.maxWaitMs ?? 2000,
  });
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    lock_timeout: options.lockTimeoutMs ?? Math.round(((options.statementTimeoutMs ?? 15_000) * 2) / 3),
    options: searchPath,
  });
  const listening = listener(options, (err) => unreachable(err));
  // An idle client that loses its connection emits here; without a listener the process
  // would crash. The pool drops the client and makes a new one on the next query.
  pool.on('error', (err) => {
    unreachable(err);
  });

  if (options.schema) {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
  }

  let available = true;
  const reachable = () => {
    if (available) return;
    available = true;
    options.onAvailability?.(true);
  };
  /** A connection failure becomes DatabaseUnavailableError, and starts an outage once. */
  const unreachable = (err: unknown): unknown => {
    if (!isConnectionError(err)) return err;
    if (available) {
      available = false;
      options.onAvailability?.(false, err);
    }
    return new DatabaseUnavailableError(err, serverOf(options.connectionString));
  };
  const run = async <Row>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ) => {
    try {
      const values = params as unknown[] | undefined;
      const name = options?.prepared === true ? statementName(sql) : options?.prepared;
      const result = name ? await client.query({ name, text: sql, values }) : await client.query(sql, values);
      const rows = result.rows as Row[];
      reachable();
      return rows;
    } catch (err) {
      if ((err as { code?: unknown }).code === LOCK_NOT_AVAILABLE) throw new DatabaseBusyError();
      throw unreachable(err);
    }
  };

  async function inTransaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw unreachable(err);
    }
    // A checked-out client has no listener of the pool's: a connection lost between two
    // statements would otherwise be an uncaught error. The statement in flight, or the next,
    // fails with it, and the transaction rolls back.
    const onLost = (err: Error) => {
      unreachable(err);
    };
    client.on('error', onLost);
    const tx: Queryable = {
      query: (sql, params, options) => run(client, sql, params, options),
      async exec(script) {
        await run(client, script);
      },
      copyFrom: (table, columns, data) => copyInto(client, table, columns, data),
    };
    try {
      await run(client, 'BEGIN');
      const result = await work(tx);
      await run(client, 'COMMIT');
      client.off('error', onLost);
      client.release();
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.off('error', onLost);
      // Passing the error destroys the connection instead of returning a possibly
      // broken one to the pool.
      client.release(err instanceof Error ? err : true);
      throw err;
    }
  }

  return {
    kind: 'postgres',
    query: (sql, params, options) => admission.run(() => run(pool, sql, params, options)),
    async exec(script) {
      await admission.run(() => pool.query(script));
    },
    copyFrom: (table, columns, data) =>
      admission.run(() => inTransaction((tx) => tx.copyFrom(table, columns, data))),
    transaction: (work) => admission.run(() => inTransaction(work)),
    poolStats: () => admission.stats(),
    async ping() {
      await run(pool, 'SELECT 1');
    },
    listen: (channel, handler) => listening.add(channel, handler),
    notifiesBeforeCommitReturns: false,
    async close() {
      await listening.close();
      await pool.end();
    },
  };
}

/**
 * LISTEN on a connection of its own (a pool's connections come and go): every handler of a
 * channel gets each NOTIFY's payload. A lost connection is opened again after a second, and
 * listens again; what was notified in between is missed (the pages poll as a fallback).
 */
function listener(options: PostgresOptions, unreachable: (err: unknown) => void) {
  const handlers = new Map<string, Set<(payload: string) => void>>();
  let client: pg.Client | undefined;
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  const connect = (): Promise<pg.Client> => {
    connecting ??= (async () => {
      const next = new pg.Client({
        connectionString: options.connectionString,
        options: options.schema ? `-c search_path=${quoteIdent(options.schema)}` : undefined,
      });
      next.on('notification', (message) => {
        for (const handler of handlers.get(message.channel) ?? []) handler(message.payload ?? '');
      });
      next.on('error', (err) => {
        unreachable(err);
        client = undefined;
        connecting = undefined;
        if (!closed) setTimeout(() => void reconnect(), 1000).unref();
      });
      await next.connect();
      for (const channel of handlers.keys()) await next.query(`LISTEN ${quoteIdent(channel)}`);
      client = next;
      return next;
    })();
    connecting.catch(() => {
      connecting = undefined;
    });
    return connecting;
  };
  const reconnect = async () => {
    if (closed || handlers.size === 0) return;
    await connect().catch(() => setTimeout(() => void reconnect(), 1000).unref());
  };
  return {
    async add(channel: string, handler: (payload: string) => void): Promise<() => Promise<void>> {
      let set = handlers.get(channel);
      const fresh = !set;
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
      }
      set.add(handler);
      const connected = client ?? (await connect());
      if (fresh && connected === client) await connected.query(`LISTEN ${quoteIdent(channel)}`);
      return async () => {
        set.delete(handler);
      };
    },
    async close() {
      closed = true;
      await client?.end().catch(() => undefined);
    },
  };
}

/** A prepared statement's name made from its text: the same text, the same name, on every connection. */
function statementName(sql: string): string {
  return `s${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
}

/** COPY … FROM STDIN on one connection, fed the whole chunk (COPY's binary format). */
async function copyInto(
  client: pg.PoolClient,
  table: string,
  columns: readonly string[],
  data: Uint8Array,
): Promise<void> {
  const stream = client.query(copyFromStdin(copyFromSql(table, columns, 'STDIN')));
  await pipeline(async function* () {
    yield data;
  }, stream);
}

/** host:port of a connection string, for messages (no user, no password). */
function serverOf(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname || 'localhost'}:${url.port || '5432'}`;
  } catch {
    return 'the DATABASE_URL';
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

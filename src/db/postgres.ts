import pg from 'pg';
import type { Database, Queryable } from './database.ts';

export interface PostgresOptions {
  connectionString: string;
  /** Schema to work in (created when missing); tests use one per suite. */
  schema?: string;
  maxConnections?: number;
  /** Upper bound for any statement, so a stuck database turns into an error, not a hang. */
  statementTimeoutMs?: number;
  onError?: (err: Error) => void;
}

export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const searchPath = options.schema ? `-c search_path=${quoteIdent(options.schema)}` : undefined;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.maxConnections ?? 10,
    connectionTimeoutMillis: 3000,
    idleTimeoutMillis: 30_000,
    statement_timeout: options.statementTimeoutMs ?? 15_000,
    options: searchPath,
  });
  // An idle client that loses its connection emits here; without a listener the process
  // would crash. The pool drops the client and makes a new one on the next query.
  pool.on('error', (err) => options.onError?.(err));

  if (options.schema) {
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
  }

  const run = async <Row>(client: pg.Pool | pg.PoolClient, sql: string, params?: readonly unknown[]) =>
    (await client.query(sql, params as unknown[] | undefined)).rows as Row[];

  return {
    kind: 'postgres',
    query: (sql, params) => run(pool, sql, params),
    async exec(script) {
      await pool.query(script);
    },
    async transaction(work) {
      const client = await pool.connect();
      const tx: Queryable = {
        query: (sql, params) => run(client, sql, params),
        async exec(script) {
          await client.query(script);
        },
      };
      try {
        await client.query('BEGIN');
        const result = await work(tx);
        await client.query('COMMIT');
        client.release();
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        // Passing the error destroys the connection instead of returning a possibly
        // broken one to the pool.
        client.release(err instanceof Error ? err : true);
        throw err;
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    async close() {
      await pool.end();
    },
  };
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

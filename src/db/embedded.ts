import { mkdirSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import { spawnModuleThread } from '../core/threads.ts';
import { copyFromSql } from './bulk.ts';
import type { Database, Queryable, QueryOptions } from './database.ts';
import type { EngineArtifacts, ThreadReply, ThreadRequest } from './pglite-thread.ts';

/** A statement ran past the embedded store's time limit; its thread was abandoned. */
export class StatementTimeoutError extends Error {
  constructor(ms: number) {
    super(`a statement ran longer than ${ms} ms and was cancelled`);
    this.name = 'StatementTimeoutError';
  }
}

export interface EmbeddedOptions {
  /** Like PostgreSQL's statement_timeout (which PGlite does not enforce); default 15 s. */
  statementTimeoutMs?: number;
  /**
   * A data folder dumped as a tarball (PGlite's dumpDataDir): a store without data of its own
   * starts as a copy of it instead of an empty cluster (tests clone one migrated store).
   */
  loadDataDir?: string | undefined;
}

/**
 * PGlite's WebAssembly modules, compiled by the first thread that opens a store in this
 * process and handed to every later one: a compiled module crosses threads with its code, so a
 * thread started after a timeout (or each of a test run's many stores) neither compiles the
 * engine again nor tiers up its hot functions again, and boots in about two thirds of the time.
 */
let engine: EngineArtifacts | undefined;

/** A resizable ArrayBuffer (ES2024, in Node 20 and later; the ES2022 types lack it). */
interface ResizableBuffer extends ArrayBuffer {
  readonly maxByteLength: number;
  resize(byteLength: number): void;
}

/** How large a COPY buffer may grow without being made anew (address space, not memory). */
const COPY_BUFFER_MAX = 64 * 1024 * 1024;

/** A resizable buffer of `byteLength` bytes: one given back by the thread, or a new one. */
function copyBuffer(spare: ResizableBuffer[], byteLength: number): ResizableBuffer {
  const reused = spare.pop();
  if (reused && reused.maxByteLength >= byteLength) {
    reused.resize(byteLength);
    return reused;
  }
  const Resizable = ArrayBuffer as unknown as new (
    length: number,
    options: { maxByteLength: number },
  ) => ResizableBuffer;
  return new Resizable(byteLength, { maxByteLength: Math.max(byteLength, COPY_BUFFER_MAX) });
}

type Request = ThreadRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

interface Waiting {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * The embedded store: PGlite (PostgreSQL in WebAssembly) kept in a folder, or in memory
 * when `dataDir` is undefined, run in a thread (pglite-thread.ts) so that a long
 * statement never stops the event loop. Statements run one at a time, in order; a
 * transaction holds the store until it ends. A statement past the time limit fails, and the
 * thread is abandoned and a fresh one opens the store again, as after a crash (an in-memory
 * store starts empty then). One process at a time may open a folder; see lock.ts.
 */
export async function openEmbedded(
  dataDir: string | undefined,
  options: EmbeddedOptions = {},
): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const timeoutMs = options.statementTimeoutMs ?? 15_000;
  const pending = new Map<number, Waiting>();
  let nextId = 1;
  /** Bumped at each restart: a transaction begun on an abandoned thread cannot go on. */
  let generation = 0;
  let closed = false;
  /** What listens to each channel (Database.listen). */
  const listeners = new Map<string, Set<(payload: string) => void>>();
  /**
   * The buffers that carried COPY rows to the thread, given back with its answers: each chunk
   * of an import is written into one of them and handed over (transferred, not copied).
   */
  const copyBuffers: ResizableBuffer[] = [];

  const failAll = (err: Error) => {
    for (const [id, waiting] of pending) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
      pending.delete(id);
    }
  };

  const start = async (): Promise<Worker> => {
    const thread = spawnModuleThread(import.meta.url, 'pglite-thread', {
      dataDir,
      loadDataDir: options.loadDataDir,
      engine,
    });
    let onError: (err: Error) => void = () => undefined;
    let onExit: (code: number) => void = () => undefined;
    let onMessage: (reply: ThreadReply) => void = () => undefined;
    await new Promise<void>((resolve, reject) => {
      onError = reject;
      onExit = (code) => reject(new Error(`the embedded store's thread exited (${code})`));
      onMessage = (reply) => {
        if ('ready' in reply) {
          engine ??= reply.engine;
          resolve();
        } else if ('failed' in reply) reject(new Error(reply.failed));
      };
      thread.on('error', onError);
      thread.on('exit', onExit);
      thread.on('message', onMessage);
    }).catch(async (err) => {
      await thread.terminate();
      throw err;
    });
    // Only these: a Worker keeps listeners of its own that start message delivery.
    thread.off('error', onError);
    thread.off('exit', onExit);
    thread.off('message', onMessage);
    thread.on('message', (reply: ThreadReply) => {
      if ('notification' in reply) {
        for (const handler of listeners.get(reply.notification.channel) ?? [])
          handler(reply.notification.payload);
        return;
      }
      if (!('id' in reply)) return;
      if ('bytes' in reply && reply.bytes) copyBuffers.push(reply.bytes as ResizableBuffer);
      const waiting = pending.get(reply.id);
      if (!waiting) return;
      pending.delete(reply.id);
      clearTimeout(waiting.timer);
      if ('error' in reply) waiting.reject(Object.assign(new Error(reply.error.message), reply.error));
      else waiting.resolve(reply.rows);
    });
    thread.on('error', (err) => failAll(err));
    thread.on('exit', () => {
      if (!closed) failAll(new Error("the embedded store's thread stopped"));
    });
    return thread;
  };

  let thread = start();
  await thread;

  const restart = () => {
    generation++;
    const old = thread;
    thread = old.then(async (w) => {
      await w.terminate();
      const next = await start();
      // The new session listens where the old one did, and every listener is told that
      // anything may have changed meanwhile (an empty payload).
      for (const channel of listeners.keys()) next.postMessage({ op: 'listen', channel, id: nextId++ });
      for (const handlers of listeners.values()) for (const handler of handlers) handler('');
      return next;
    });
    thread.catch(() => undefined);
  };

  const send = async (
    request: Request,
    forGeneration = generation,
    transfer: ArrayBuffer[] = [],
  ): Promise<unknown[]> => {
    if (forGeneration !== generation) {
      throw new Error('the transaction was abandoned with its thread after a statement timed out');
    }
    const w = await thread;
    const id = nextId++;
    return new Promise<unknown[]>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new StatementTimeoutError(timeoutMs));
        failAll(new StatementTimeoutError(timeoutMs));
        restart();
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      w.postMessage({ ...request, id }, transfer);
    });
  };

  // One statement or one transaction at a time, in arrival order.
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };

  const queryable = (forGeneration?: number): Queryable => ({
    async query<Row>(sql: string, params?: readonly unknown[], options?: QueryOptions) {
      const prepared = Boolean(options?.prepared);
      return (await send(
        { op: 'query', sql, params: [...(params ?? [])], prepared },
        forGeneration,
      )) as Row[];
    },
    async exec(script: string) {
      await send({ op: 'exec', sql: script }, forGeneration);
    },
    async copyFrom(table: string, columns: readonly string[], data: Uint8Array) {
      const bytes = copyBuffer(copyBuffers, data.byteLength);
      new Uint8Array(bytes).set(data);
      await send({ op: 'copy', sql: copyFromSql(table, columns, "'/dev/blob'"), bytes }, forGeneration, [
        bytes,
      ]);
    },
  });
  const direct = queryable();

  return {
    kind: 'embedded',
    query: (sql, params, options) => exclusive(() => direct.query(sql, params, options)),
    exec: (script) => exclusive(() => direct.exec(script)),
    copyFrom: (table, columns, data) => exclusive(() => direct.copyFrom(table, columns, data)),
    transaction: (work) =>
      exclusive(async () => {
        const at = generation;
        const tx = queryable(at);
        await tx.exec('BEGIN');
        try {
          const result = await work(tx);
          await tx.exec('COMMIT');
          return result;
        } catch (err) {
          if (at === generation) await tx.exec('ROLLBACK').catch(() => undefined);
          throw err;
        }
      }),
    async listen(channel, handler) {
      let handlers = listeners.get(channel);
      if (!handlers) {
        handlers = new Set();
        listeners.set(channel, handlers);
        await exclusive(() => send({ op: 'listen', channel }));
      }
      handlers.add(handler);
      return async () => {
        handlers.delete(handler);
      };
    },
    notifiesBeforeCommitReturns: true,
    // Statements queue here one at a time; there is no pool to wait for.
    poolStats: () => ({ waits: 0, sheds: 0, waiting: 0 }),
    async ping() {
      await exclusive(() => direct.query('SELECT 1'));
    },
    async close() {
      await exclusive(async () => {
        const w = await thread;
        await send({ op: 'close' }).catch(() => undefined);
        closed = true;
        await w.terminate();
      });
    },
  };
}

/**
 * The thread runs compiled JavaScript; from the TypeScript source (the test runner) it is
 * loaded through tsx, a development dependency, registered in the thread first.
 */

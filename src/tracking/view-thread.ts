import type { Worker } from 'node:worker_threads';
import { ApiError, type ErrorCode } from '../core/errors.ts';
import { spawnModuleThread } from '../core/threads.ts';
import { DatabaseBusyError, DatabaseUnavailableError } from '../db/database.ts';
import type { PostgresOptions } from '../db/postgres.ts';
import type { RecordedEvent } from '../events/catalogue.ts';
import { IdempotentReplay, type WriteContext } from '../write/transaction.ts';
import type { StartView, View } from './view-starts.ts';
import type { ViewerInput } from './viewers.ts';

/**
 * View starts written in a thread of their own (view-thread-entry.ts), for `dealroom serve`
 * on PostgreSQL. Live tracking sends more view starts than anything else, and each batch of
 * them (view-starts.ts) is a transaction of about ten statements: on the main thread every
 * one of those round trips waits its turn behind the read requests the same event loop is
 * serving. In the thread the batches have an event loop and a pool of their own, and run
 * the same domain function. The thread uses the system clock, as `serve` does.
 */
export interface ViewStartThread {
  startView: StartView;
  close(): Promise<void>;
}

export type ThreadOptions = Omit<PostgresOptions, 'onAvailability'>;

export interface ViewStartRequest {
  id: number;
  linkId: string;
  documentId: string;
  viewer: ViewerInput;
  /** Milliseconds since the epoch. */
  startedAt?: number | undefined;
  reporting?: boolean | undefined;
  idempotency?: WriteContext['idempotency'];
}

/** An error crossing the thread boundary, to be thrown again as what it was. */
export type ThreadError =
  | { kind: 'api'; code: ErrorCode; message: string; headers: Record<string, string> }
  | { kind: 'replay'; result: unknown }
  | { kind: 'busy' }
  | { kind: 'unavailable'; message: string }
  | { kind: 'failed'; message: string; stack?: string | undefined };

export type ViewThreadReply =
  | { id: number; view: View; events: RecordedEvent[] }
  | { id: number; error: ThreadError }
  | { ready: true }
  | { failed: string };

export function toThreadError(err: unknown): ThreadError {
  if (err instanceof ApiError)
    return { kind: 'api', code: err.code, message: err.message, headers: err.headers };
  if (err instanceof IdempotentReplay) return { kind: 'replay', result: err.result };
  if (err instanceof DatabaseBusyError) return { kind: 'busy' };
  if (err instanceof DatabaseUnavailableError) return { kind: 'unavailable', message: String(err.cause) };
  const error = err instanceof Error ? err : new Error(String(err));
  return { kind: 'failed', message: error.message, stack: error.stack };
}

function fromThreadError(error: ThreadError): unknown {
  switch (error.kind) {
    case 'api':
      return new ApiError(error.code, error.message, error.headers);
    case 'replay':
      return new IdempotentReplay(error.result);
    case 'busy':
      return new DatabaseBusyError();
    case 'unavailable':
      return new DatabaseUnavailableError(new Error(error.message));
    case 'failed':
      return Object.assign(new Error(error.message), { stack: error.stack });
  }
}

interface Waiting {
  ctx: WriteContext;
  resolve(view: View): void;
  reject(err: unknown): void;
}

/**
 * Starts the thread (it opens its own pool with `options`); a thread that dies fails the
 * view starts it held, and the next view start starts a new one.
 */
export async function openViewStartThread(options: ThreadOptions): Promise<ViewStartThread> {
  const waiting = new Map<number, Waiting>();
  let nextId = 1;
  let closed = false;

  const spawn = () =>
    new Promise<Worker>((resolve, reject) => {
      const worker = spawnModuleThread(import.meta.url, 'view-thread-entry', { viewStarts: true, options });
      const failAll = (err: unknown) => {
        for (const w of waiting.values()) w.reject(err);
        waiting.clear();
      };
      worker.on('message', (reply: ViewThreadReply) => {
        if ('ready' in reply) return resolve(worker);
        if ('failed' in reply) {
          reject(new Error(`the view-start thread could not open the database: ${reply.failed}`));
          return void worker.terminate();
        }
        const w = waiting.get(reply.id);
        if (!w) return;
        waiting.delete(reply.id);
        if ('error' in reply) return w.reject(fromThreadError(reply.error));
        w.ctx.onCommitted?.(reply.events);
        w.resolve(reply.view);
      });
      worker.on('error', (err) => {
        reject(err);
        failAll(err);
      });
      worker.on('exit', (code) => {
        thread = undefined;
        const err = new Error(`the view-start thread stopped (exit code ${code})`);
        reject(err);
        failAll(err);
      });
    });

  let thread: Promise<Worker> | undefined = spawn();
  await thread;

  return {
    async startView(ctx, linkId, input) {
      if (closed) throw new Error('the view-start thread is closed');
      thread ??= spawn();
      const worker = await thread;
      return new Promise<View>((resolve, reject) => {
        const id = nextId++;
        waiting.set(id, { ctx, resolve, reject });
        const request: ViewStartRequest = {
          id,
          linkId,
          documentId: input.documentId,
          viewer: input.viewer,
          startedAt: input.startedAt?.getTime(),
          reporting: input.reporting,
          idempotency: ctx.idempotency,
        };
        worker.postMessage(request);
      });
    },
    async close() {
      closed = true;
      const worker = await thread?.catch(() => undefined);
      if (!worker) return;
      const exited = new Promise<void>((done) => worker.once('exit', () => done()));
      worker.postMessage('close');
      await exited;
    },
  };
}

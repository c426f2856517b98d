/**
 * The thread that writes view starts for `dealroom serve` on PostgreSQL (view-thread.ts): a
 * pool and an event loop of its own, running the same domain function (a view-start writer
 * of its own, with its batching). The main thread sends one message per view start and gets back the view
 * and the events it recorded, or the error to answer with.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../core/clock.ts';
import { openPostgres } from '../db/postgres.ts';
import type { RecordedEvent } from '../events/catalogue.ts';
import type { WriteContext } from '../write/transaction.ts';
import { createViewStartWriter } from './view-starts.ts';
import {
  type ThreadOptions,
  toThreadError,
  type ViewStartRequest,
  type ViewThreadReply,
} from './view-thread.ts';

async function main(port: NonNullable<typeof parentPort>): Promise<void> {
  const send = (reply: ViewThreadReply) => port.postMessage(reply);
  let db: Awaited<ReturnType<typeof openPostgres>>;
  try {
    db = await openPostgres((workerData as { options: ThreadOptions }).options);
  } catch (err) {
    send({ failed: err instanceof Error ? err.message : String(err) });
    return;
  }
  const startView = createViewStartWriter();
  port.on('message', (message: ViewStartRequest | 'close') => {
    if (message === 'close') {
      void db.close().finally(() => port.close());
      return;
    }
    const events: RecordedEvent[] = [];
    const ctx: WriteContext = {
      db,
      clock: systemClock,
      appUrl: '',
      idempotency: message.idempotency,
      onCommitted: (recorded) => events.push(...recorded),
    };
    const startedAt = message.startedAt === undefined ? undefined : new Date(message.startedAt);
    startView(ctx, message.linkId, {
      documentId: message.documentId,
      viewer: message.viewer,
      startedAt,
      reporting: message.reporting,
    }).then(
      (view) => send({ id: message.id, view, events }),
      (err: unknown) => send({ id: message.id, error: toThreadError(err) }),
    );
  });
  send({ ready: true });
}

if (parentPort && (workerData as { viewStarts?: boolean } | undefined)?.viewStarts) void main(parentPort);

import type { Database, Queryable } from '../db/database.ts';
import { ApiError } from '../http/errors.ts';
import type { RecordedEvent } from '../outbox/record.ts';
import type { Clock } from '../shared/clock.ts';

/** How long the first answer to an Idempotency-Key is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/** What every write operation needs; the management API, the CLI, the seed and tests pass it. */
export interface WriteContext {
  db: Database;
  clock: Clock;
  /** Links are rendered with their public address under it. */
  appUrl: string;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: endpoints may be http:// and private addresses (development, tests). */
  allowPrivateUrls?: boolean | undefined;
  /** A retry-safe request: its key, and a fingerprint of the whole request. */
  idempotency?: { key: string; fingerprint: string } | undefined;
  /** Told of the events a write recorded, once it has committed (metrics). */
  onCommitted?: ((events: readonly RecordedEvent[]) => void) | undefined;
}

/** The transaction a write runs in, with what it records. */
export interface WriteTx extends Queryable {
  readonly now: Date;
  readonly events: RecordedEvent[];
}

/** A repeated Idempotency-Key: the first answer, to be returned as it was. */
export class IdempotentReplay {
  constructor(readonly result: unknown) {}
}

/** SQLSTATEs after which the whole transaction can simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;

/**
 * Runs one write in one transaction: the change, its deltas and its events commit
 * together or not at all. With an idempotency key, the key's row is claimed in the same
 * transaction, so a retry finds either the committed change with its answer, or nothing;
 * a repeat throws IdempotentReplay with the first answer. `kept` is what the answer stores
 * for a repeat (a plain secret is never stored). A deadlock or serialization failure runs
 * the whole transaction again.
 */
export async function inWrite<T>(
  ctx: WriteContext,
  work: (tx: WriteTx) => Promise<T>,
  kept: (result: T) => unknown = (result) => result,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const events: RecordedEvent[] = [];
    try {
      const result = await ctx.db.transaction(async (inner) => {
        const tx: WriteTx = {
          now: ctx.clock.now(),
          events,
          query: (sql, params) => inner.query(sql, params),
          exec: (script) => inner.exec(script),
          copyFrom: (table, columns, text) => inner.copyFrom(table, columns, text),
        };
        if (ctx.idempotency) await claimKey(tx, ctx.idempotency);
        const value = await work(tx);
        if (ctx.idempotency) {
          await tx.query('UPDATE idempotency_keys SET result = $2 WHERE key = $1', [
            ctx.idempotency.key,
            JSON.stringify(kept(value) ?? null),
          ]);
        }
        return value;
      });
      ctx.onCommitted?.(events);
      return result;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (attempt < MAX_ATTEMPTS && typeof code === 'string' && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}

async function claimKey(tx: WriteTx, claim: { key: string; fingerprint: string }): Promise<void> {
  // A concurrent request with the same key waits here until the first one commits or
  // rolls back; then it either finds the kept answer or claims the key itself.
  const claimed = await tx.query(
    `INSERT INTO idempotency_keys (key, fingerprint, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, result = NULL,
                                     created_at = excluded.created_at
       WHERE idempotency_keys.created_at < $4
     RETURNING 1`,
    [claim.key, claim.fingerprint, tx.now, new Date(tx.now.getTime() - IDEMPOTENCY_TTL_MS)],
  );
  if (claimed.length > 0) return;
  const [first] = await tx.query<{ fingerprint: string; result: unknown }>(
    'SELECT fingerprint, result FROM idempotency_keys WHERE key = $1',
    [claim.key],
  );
  if (!first || first.fingerprint !== claim.fingerprint) {
    throw new ApiError(
      'conflict',
      'This Idempotency-Key was already used with a different request; use a new key for a new request',
    );
  }
  throw new IdempotentReplay(first.result);
}

/** Forgets answers older than 24 hours. */
export async function pruneIdempotencyKeys(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [
    new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
  ]);
}

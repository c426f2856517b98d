import { type AuditEntry, recordAudit, type UserActor } from '../audit/repo.ts';
import type { Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { RecordedEvent } from '../events/catalogue.ts';

/** How long the first answer to an Idempotency-Key is kept. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

/**
 * Who makes a change: a user of a team (each of their changes is in the team's audit log),
 * the holder of the admin token, the CLI, a visitor of the web app (a link's recipient, a
 * person signing in), or the service itself.
 */
export type Actor = UserActor | { kind: 'admin' | 'cli' | 'visitor' | 'system' };

/** What every write operation needs; one factory makes it (write/context.ts). */
export interface WriteContext {
  db: Database;
  clock: Clock;
  /** Links are rendered with their public address under it. */
  appUrl: string;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: endpoints may be http:// and private addresses (development, tests). */
  allowPrivateUrls?: boolean | undefined;
  /** SMTP_URL is set: a link may verify emails (else turning it on is a 409). */
  mailConfigured?: boolean | undefined;
  /** VISIT_EMAIL_DELAY_SECONDS, in ms: a visit's email is due this long after the visit starts. */
  visitEmailDelayMs?: number | undefined;
  /** A retry-safe request: its key, and a fingerprint of the whole request. */
  idempotency?: { key: string; fingerprint: string } | undefined;
  /** Told of the events a write recorded, once it has committed (metrics). */
  onCommitted?: ((events: readonly RecordedEvent[]) => void) | undefined;
  /** Who acts (the system when absent). */
  actor?: Actor | undefined;
  /**
   * The team whose data the write may touch: every loader of a team's resource filters by it,
   * so an id of another team's is not found, whoever called. Absent: any team (the admin
   * token, the CLI, the service).
   */
  teamId?: string | undefined;
  /**
   * What the team's audit log says of the change, from its result: written in the change's
   * own transaction when a user acts, so it commits with the change or not at all.
   */
  audit?: ((result: unknown) => AuditEntry) | undefined;
}

/** The transaction a write runs in, with what it records and the team it may touch. */
export interface WriteTx extends Queryable {
  readonly now: Date;
  readonly events: RecordedEvent[];
  /** The write's team scope (WriteContext.teamId); undefined: any team. */
  readonly teamId?: string | undefined;
}

/** The team a loader keeps to: the transaction's scope, or null for any team (a plain reader). */
export function scopeOf(db: Queryable): string | null {
  return (db as Partial<WriteTx>).teamId ?? null;
}

/** A repeated Idempotency-Key: the first answer, to be returned as it was. */
export class IdempotentReplay {
  constructor(readonly result: unknown) {}
}

/** SQLSTATEs after which the whole transaction can simply run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 3;

/**
 * The transaction with every statement prepared (QueryOptions.prepared): for the batches of
 * live tracking, whose few statements run thousands of times a minute.
 */
export function preparing(tx: WriteTx): WriteTx {
  return { ...tx, query: (sql, params, options) => tx.query(sql, params, { prepared: true, ...options }) };
}

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
          teamId: ctx.teamId,
          query: (sql, params, options) => inner.query(sql, params, options),
          exec: (script) => inner.exec(script),
          copyFrom: (table, columns, data) => inner.copyFrom(table, columns, data),
        };
        if (ctx.idempotency) {
          const [refused] = await claimKeys(tx, [ctx.idempotency]);
          if (refused) throw refused;
        }
        const value = await work(tx);
        if (ctx.audit && ctx.actor?.kind === 'user') await recordAudit(tx, ctx.actor, ctx.audit(value));
        if (ctx.idempotency) await keepAnswers(tx, [{ key: ctx.idempotency.key, answer: kept(value) }]);
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

export interface IdempotencyClaim {
  key: string;
  fingerprint: string;
}

/**
 * Claims Idempotency-Keys in the writing transaction (no key twice). Each comes back null
 * when claimed (the write goes ahead), or as what its request answers instead: the first
 * answer (IdempotentReplay), or a conflict when that answer was to another request. A
 * concurrent request with the same key waits here until the first one commits or rolls
 * back; then it either finds the kept answer or claims the key itself.
 */
export async function claimKeys(
  tx: WriteTx,
  claims: readonly IdempotencyClaim[],
): Promise<(IdempotentReplay | ApiError | null)[]> {
  if (claims.length === 0) return [];
  const claimed = await tx.query<{ key: string }>(
    `INSERT INTO idempotency_keys (key, fingerprint, created_at)
     SELECT key, fingerprint, $3 FROM unnest($1::text[], $2::text[]) AS c(key, fingerprint) ORDER BY key
     ON CONFLICT (key) DO UPDATE SET fingerprint = excluded.fingerprint, result = NULL,
                                     created_at = excluded.created_at
       WHERE idempotency_keys.created_at < $4
     RETURNING key`,
    [
      claims.map((c) => c.key),
      claims.map((c) => c.fingerprint),
      tx.now,
      new Date(tx.now.getTime() - IDEMPOTENCY_TTL_MS),
    ],
  );
  const ours = new Set(claimed.map((row) => row.key));
  const taken = claims.filter((c) => !ours.has(c.key));
  const first = new Map<string, { fingerprint: string; result: unknown }>();
  if (taken.length > 0) {
    const rows = await tx.query<{ key: string; fingerprint: string; result: unknown }>(
      'SELECT key, fingerprint, result FROM idempotency_keys WHERE key = ANY ($1::text[])',
      [taken.map((c) => c.key)],
    );
    for (const row of rows) first.set(row.key, row);
  }
  return claims.map((claim) => {
    if (ours.has(claim.key)) return null;
    const answer = first.get(claim.key);
    if (!answer || answer.fingerprint !== claim.fingerprint) {
      return new ApiError(
        'conflict',
        'This Idempotency-Key was already used with a different request; use a new key for a new request',
      );
    }
    return new IdempotentReplay(answer.result);
  });
}

/** Keeps each claimed key's answer, for its repeats. */
export async function keepAnswers(
  tx: WriteTx,
  answers: readonly { key: string; answer: unknown }[],
): Promise<void> {
  if (answers.length === 0) return;
  await tx.query(
    `UPDATE idempotency_keys k SET result = a.result
       FROM unnest($1::text[], $2::jsonb[]) AS a(key, result) WHERE k.key = a.key`,
    [answers.map((a) => a.key), answers.map((a) => JSON.stringify(a.answer ?? null))],
  );
}

/**
 * Gives back keys claimed for writes that were then refused, as a rollback of their own
 * would (a batch commits the others): a retry of a refused request runs again.
 */
export async function releaseKeys(tx: WriteTx, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await tx.query('DELETE FROM idempotency_keys WHERE key = ANY ($1::text[])', [keys]);
}

/** Forgets answers older than 24 hours. */
export async function pruneIdempotencyKeys(db: Queryable, now: Date): Promise<void> {
  await db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [
    new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
  ]);
}

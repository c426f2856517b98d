import type { Queryable } from '../db/database.ts';

/**
 * Keeps a tracking write and the deletion of what it goes through (a link, a document, a
 * room's links) apart, without row locks on the rows the write then updates: a share lock
 * on a busy room's or document's row by every concurrent view would turn each of their
 * counter updates into MultiXact bookkeeping. Transaction-scoped advisory locks, taken in
 * one order: tracking writes share them, a deletion takes them alone, so it waits for the
 * writes in flight and the writes after it find nothing to write to.
 */
export async function shareGuards(tx: Queryable, ids: readonly string[]): Promise<void> {
  await lockGuards(tx, ids, 'pg_advisory_xact_lock_shared');
}

export async function exclusiveGuards(tx: Queryable, ids: readonly string[]): Promise<void> {
  await lockGuards(tx, ids, 'pg_advisory_xact_lock');
}

async function lockGuards(tx: Queryable, ids: readonly string[], lock: string): Promise<void> {
  if (ids.length === 0) return;
  await tx.query(
    `SELECT count(${lock}(k))::int AS n
       FROM (SELECT DISTINCT hashtextextended(lower(x), 7231005) AS k FROM unnest($1::text[]) x ORDER BY 1) t`,
    [ids],
  );
}

import { verifyPassword } from '../core/passwords.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { GATE_FAILURES, gateFailures, recordGateFailure } from './repo.ts';

/** What a link's password step answers: passed, wrong (counted), or wait this many seconds. */
export type PasswordCheck =
  | { ok: true }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * The gate's password step for one address on one link: past 5 wrong passwords in 15
 * minutes it waits; a wrong password is recorded as a failure in its own transaction.
 */
export async function checkLinkPassword(
  ctx: WriteContext,
  link: { id: string; passwordHash: string },
  address: string,
  password: string,
): Promise<PasswordCheck> {
  const now = ctx.clock.now();
  const failures = await gateFailures(
    ctx.db,
    link.id,
    address,
    new Date(now.getTime() - GATE_FAILURES.windowMs),
  );
  if (failures.count >= GATE_FAILURES.limit && failures.oldest) {
    const wait = Math.ceil((failures.oldest.getTime() + GATE_FAILURES.windowMs - now.getTime()) / 1000);
    return { ok: false, reason: 'throttled', retryAfterSeconds: Math.max(1, wait) };
  }
  if (password.length <= 1024 && (await verifyPassword(password, link.passwordHash))) return { ok: true };
  await inWrite(ctx, (tx) => recordGateFailure(tx, link.id, address, tx.now));
  return { ok: false, reason: 'wrong' };
}

import { randomUUID } from 'node:crypto';
import { verifyPassword } from '../core/passwords.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { forgetGateAttempt, GATE_FAILURES, gateFailures, recordGateFailure } from './repo.ts';

/** What a link's password step answers: passed, wrong (counted), or wait this many seconds. */
export type PasswordCheck =
  | { ok: true }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * The gate's password step for one address on one link: past 5 wrong passwords in 15
 * minutes it waits. Each attempt is counted before its password is checked, under a lock on
 * the link and address, so attempts sent at once are counted one after another; a right
 * password takes its own attempt back.
 */
export async function checkLinkPassword(
  ctx: WriteContext,
  link: { id: string; passwordHash: string },
  address: string,
  password: string,
): Promise<PasswordCheck> {
  const attempt = randomUUID();
  const claimed = await inWrite(ctx, async (tx): Promise<PasswordCheck | undefined> => {
    await exclusiveGuards(tx, [`gate:${link.id}:${address}`]);
    const failures = await gateFailures(
      tx,
      link.id,
      address,
      new Date(tx.now.getTime() - GATE_FAILURES.windowMs),
    );
    if (failures.count >= GATE_FAILURES.limit && failures.oldest) {
      const wait = Math.ceil((failures.oldest.getTime() + GATE_FAILURES.windowMs - tx.now.getTime()) / 1000);
      return { ok: false, reason: 'throttled', retryAfterSeconds: Math.max(1, wait) };
    }
    await recordGateFailure(tx, link.id, address, tx.now, attempt);
    return undefined;
  });
  if (claimed) return claimed;
  if (password.length <= 1024 && (await verifyPassword(password, link.passwordHash))) {
    await inWrite(ctx, (tx) => forgetGateAttempt(tx, attempt));
    return { ok: true };
  }
  return { ok: false, reason: 'wrong' };
}

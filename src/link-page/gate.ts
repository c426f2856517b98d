import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { isUuid, newId } from '../core/ids.ts';
import { verifyPassword } from '../core/passwords.ts';
import { announceActivity } from '../events/activity.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import {
  codesSent,
  deleteCode,
  forgetGateAttempt,
  GATE_FAILURES,
  type GateRecord,
  gateFailures,
  insertCode,
  insertGateRecord,
  recordGateFailure,
  tryCode,
} from './repo.ts';

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

/** A code is good for this long and this many tries; one email gets at most this many an hour, 30 s apart. */
export const CODES = { ttlMs: 10 * 60_000, tries: 5, perHour: 5, gapMs: 30_000 } as const;

export type CodeSent = { ok: true; id: string; code: string } | { ok: false; retryAfterSeconds: number };

/**
 * A new six-digit code for an email on a link (the route mails it once this has committed):
 * at most CODES.perHour an hour and one per CODES.gapMs, counted under a lock on the link and
 * email, so a burst of requests sends one.
 */
export async function newCode(ctx: WriteContext, linkId: string, email: string): Promise<CodeSent> {
  return inWrite(ctx, async (tx) => {
    await exclusiveGuards(tx, [`code:${linkId}:${email.toLowerCase()}`]);
    const now = tx.now.getTime();
    const sent = await codesSent(tx, linkId, email, new Date(now - 60 * 60_000));
    const latest = sent.latest?.getTime() ?? 0;
    if (sent.count >= CODES.perHour || now - latest < CODES.gapMs) {
      const until = sent.count >= CODES.perHour ? latest + 60 * 60_000 : latest + CODES.gapMs;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) };
    }
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = randomUUID();
    await insertCode(tx, {
      id,
      linkId,
      email,
      sha256: codeHash(id, code),
      sentAt: tx.now,
      expiresAt: new Date(now + CODES.ttlMs),
    });
    return { ok: true, id, code };
  });
}

/** What a typed code was: right (and used up), wrong, past its 10 minutes, or out of tries. */
export type CodeCheck = 'right' | 'wrong' | 'expired' | 'spent';

/** One try of a code sent to this browser; the try is counted before the code is compared. */
export async function checkCode(
  ctx: WriteContext,
  codeId: string,
  linkId: string,
  typed: string,
): Promise<CodeCheck> {
  if (!isUuid(codeId)) return 'expired';
  return inWrite(ctx, async (tx) => {
    const found = await tryCode(tx, codeId, linkId, tx.now, CODES.tries);
    if (typeof found === 'string') return found;
    const given = Buffer.from(codeHash(codeId, typed));
    if (!timingSafeEqual(given, Buffer.from(found.sha256))) return 'wrong';
    await deleteCode(tx, codeId);
    return 'right';
  });
}

const codeHash = (id: string, code: string) => createHash('sha256').update(`${id}:${code}`).digest('hex');

/** A refusal by the link's lists or an accepted agreement, recorded for the team. */
export async function recordGateStep(
  ctx: WriteContext,
  record: Omit<GateRecord, 'id' | 'at'>,
): Promise<void> {
  await inWrite(ctx, async (tx) => {
    await insertGateRecord(tx, { ...record, id: newId(tx.now.getTime()), at: tx.now });
    if (record.kind === 'refused') await announceActivity(tx, [record.roomId]);
  });
}

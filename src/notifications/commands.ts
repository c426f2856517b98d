import { createHash, randomBytes } from 'node:crypto';
import { DateTime } from 'luxon';
import { ApiError } from '../core/errors.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { Actor, WriteContext, WriteTx } from '../write/transaction.ts';
import { inWrite } from '../write/transaction.ts';
import { type Composed, composeDigest, composeVisit } from './compose.ts';
import {
  type ClaimedNotification,
  claimDueNotifications,
  dropNotification,
  failNotification,
  finishNotification,
  insertVisitNotifications,
  notificationByUnsubscribe,
  setFollow,
  setVisitEmailsRow,
  VISIT_EMAIL_CHOICES,
  type VisitEmails,
} from './repo.ts';

/** A visit's email waits this long by default, so it can say what was read (as DocSend waits 3 minutes). */
export const DEFAULT_VISIT_EMAIL_DELAY_MS = 180_000;
/** A failed send is tried again after 1, 2, 4, 8 and 16 minutes, then given up. */
const RETRIES = 5;
/** Claimed and sent at the same time, on the mailer's pooled connections. */
const SENDING_AT_ONCE = 4;
/**
 * A claim outlasts the longest send twice over: only then does another worker take it (this
 * one died while sending). Without SMTP nothing is sent, and a short claim is enough.
 */
const leaseMs = (mailer: Mailer | undefined) => 2 * (mailer?.longestSendMs ?? 0) + 5_000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * In the visit's own transaction: a visit email for each follower of the room who wants one,
 * due `delay` after the visit started. The worker sends it (deliverNotifications).
 */
export async function queueVisitEmails(
  tx: WriteTx,
  ctx: WriteContext,
  visit: { teamId: string; roomId: string; visitId: string; viewerId: string; at: Date },
): Promise<void> {
  const delay = ctx.visitEmailDelayMs ?? DEFAULT_VISIT_EMAIL_DELAY_MS;
  await insertVisitNotifications(tx, {
    ...visit,
    dueAt: new Date(Math.max(visit.at.getTime(), tx.now.getTime() - delay) + delay),
    now: tx.now,
  });
}

/** A room's or a link's creator follows the room from then on (unless they chose otherwise before). */
export async function followAsCreator(tx: WriteTx, actor: Actor | undefined, roomId: string): Promise<void> {
  if (actor?.kind !== 'user') return;
  await setFollow(tx, { userId: actor.userId, roomId, following: true, at: tx.now }, true);
}

/** Follow or Unfollow on a room's page. */
export async function followRoom(
  ctx: WriteContext,
  userId: string,
  roomId: string,
  following: boolean,
): Promise<void> {
  await inWrite(ctx, (tx) => setFollow(tx, { userId, roomId, following, at: tx.now }));
}

/** A user's choice of visit emails: each visit, a daily digest at an hour of their zone, or none. */
export async function setVisitEmails(
  ctx: WriteContext,
  userId: string,
  choice: string,
  digestHour: number,
): Promise<{ visitEmails: VisitEmails; digestHour: number }> {
  if (!VISIT_EMAIL_CHOICES.includes(choice as VisitEmails)) {
    throw new ApiError('validation_error', 'visitEmails must be instant, digest or off');
  }
  if (!Number.isInteger(digestHour) || digestHour < 0 || digestHour > 23) {
    throw new ApiError('validation_error', 'digestHour must be an hour from 0 to 23');
  }
  await inWrite(ctx, (tx) => setVisitEmailsRow(tx, userId, choice as VisitEmails, digestHour, tx.now));
  return { visitEmails: choice as VisitEmails, digestHour };
}

/**
 * An email's unsubscribe link, used (one click, or the page's button): a visit email's stops
 * the room's visit emails for its user (Unfollow); a digest's stops the digest.
 */
export async function unsubscribe(
  ctx: WriteContext,
  token: string,
): Promise<{ kind: 'visit' | 'digest'; roomName: string | null } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  return inWrite(ctx, async (tx) => {
    const found = await notificationByUnsubscribe(tx, sha256(token));
    if (!found) return undefined;
    if (found.kind === 'visit' && found.deal_room_id) {
      await setFollow(tx, {
        userId: found.user_id,
        roomId: found.deal_room_id,
        following: false,
        at: tx.now,
      });
    } else {
      await tx.query(`UPDATE users SET visit_emails = 'off', updated_at = $2 WHERE id = $1`, [
        found.user_id,
        tx.now,
      ]);
    }
    return { kind: found.kind, roomName: found.room_name };
  });
}

/**
 * Sends the notifications that are due (the worker calls it): each claimed for a minute,
 * composed from what the store holds now, mailed with its unsubscribe headers (or, without
 * SMTP, kept for the dashboard's Notifications page), and marked; a failed send is tried again
 * later. Returns how many were finished.
 */
export async function deliverNotifications(
  ctx: WriteContext,
  o: { mailer: Mailer | undefined; appUrl: string; limit?: number },
): Promise<number> {
  let finished = 0;
  const one = async (n: ClaimedNotification): Promise<void> => {
    const token = randomBytes(32).toString('base64url');
    const unsubscribeUrl = `${o.appUrl}/unsubscribe/${token}`;
    let composed: Composed | undefined;
    try {
      composed =
        n.kind === 'visit'
          ? await composeVisit(ctx.db, {
              visitId: n.visit_id ?? '',
              viewerId: n.viewer_id ?? '',
              zone: n.timezone,
              appUrl: o.appUrl,
              unsubscribeUrl,
            })
          : await composeDigest(ctx.db, {
              userId: n.user_id,
              day: n.digest_day ?? '',
              zone: n.timezone,
              appUrl: o.appUrl,
              unsubscribeUrl,
            });
      if (!composed) {
        await dropNotification(ctx.db, n.id);
        return;
      }
      if (o.mailer) {
        await o.mailer.sendNotification({
          to: n.email,
          ...composed,
          unsubscribeUrl,
          messageId: `<${n.id}@deal-room.notifications>`,
        });
      }
      await finishNotification(ctx.db, n.id, {
        state: o.mailer ? 'sent' : 'kept',
        subject: composed.subject,
        text: composed.text,
        unsubscribeSha256: sha256(token),
        at: ctx.clock.now(),
      });
      finished++;
    } catch (err) {
      const retryAt =
        n.attempts > RETRIES ? null : new Date(ctx.clock.now().getTime() + 60_000 * 2 ** (n.attempts - 1));
      await failNotification(ctx.db, n.id, err instanceof Error ? err.message : String(err), retryAt);
    }
  };
  // A few claimed and sent at once (the mailer keeps a few SMTP connections open), then the
  // next few: a claim is held only while its own email is sent, so a worker that dies holds
  // back at most these few, and a slow server never lets a claim lapse while it is waited on.
  const limit = o.limit ?? 100;
  for (let taken = 0; taken < limit; ) {
    const now = ctx.clock.now();
    const claimed = await claimDueNotifications(
      ctx.db,
      now,
      new Date(now.getTime() + leaseMs(o.mailer)),
      Math.min(SENDING_AT_ONCE, limit - taken),
    );
    if (claimed.length === 0) break;
    taken += claimed.length;
    await Promise.all(claimed.map(one));
  }
  return finished;
}

/**
 * Queues the daily digests that are due: for each user who chose the digest, once their
 * zone's clock has passed their hour, the day before (in their zone), once per day.
 */
export async function queueDigests(ctx: WriteContext): Promise<number> {
  const now = ctx.clock.now();
  const users = await ctx.db.query<{ id: string; team_id: string; zone: string; digest_hour: number }>(
    `SELECT u.id, u.team_id, coalesce(u.timezone, t.timezone) AS zone, u.digest_hour
       FROM users u JOIN teams t ON t.id = u.team_id
      WHERE u.visit_emails = 'digest' AND u.password_hash IS NOT NULL`,
  );
  let queued = 0;
  for (const user of users) {
    const local = DateTime.fromJSDate(now, { zone: user.zone });
    if (!local.isValid || local.hour < user.digest_hour) continue;
    const day = local.minus({ days: 1 }).toISODate();
    const rows = await ctx.db.query(
      `INSERT INTO notifications (id, team_id, user_id, kind, digest_day, due_at, created_at)
       VALUES (gen_random_uuid(), $1, $2, 'digest', $3, $4, $4) ON CONFLICT DO NOTHING RETURNING id`,
      [user.team_id, user.id, day, now],
    );
    queued += rows.length;
  }
  return queued;
}

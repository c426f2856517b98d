import type { Queryable } from '../db/database.ts';

export type VisitEmails = 'instant' | 'digest' | 'off';
export const VISIT_EMAIL_CHOICES: readonly VisitEmails[] = ['instant', 'digest', 'off'];

/**
 * Who follows a room: an explicit row says yes or no; without one, nobody. The users who
 * follow it and want an email per visit, as the room's visit emails are addressed.
 */
const FOLLOWERS = `SELECT u.id FROM users u
   JOIN room_follows f ON f.user_id = u.id AND f.deal_room_id = $2 AND f.following
  WHERE u.team_id = $1 AND u.password_hash IS NOT NULL AND u.visit_emails = 'instant'`;

/** A pending visit email for each follower who wants one, due at `dueAt`; once per user and visit. */
export async function insertVisitNotifications(
  tx: Queryable,
  visit: { teamId: string; roomId: string; visitId: string; viewerId: string; dueAt: Date; now: Date },
): Promise<void> {
  await tx.query(
    `INSERT INTO notifications (id, team_id, user_id, kind, deal_room_id, visit_id, viewer_id, due_at, created_at)
     SELECT gen_random_uuid(), $1, f.id, 'visit', $2, $3, $4, $5, $6 FROM (${FOLLOWERS}) f
     ON CONFLICT DO NOTHING`,
    [visit.teamId, visit.roomId, visit.visitId, visit.viewerId, visit.dueAt, visit.now],
  );
}

/** Sets whether a user follows a room; `onlyIfUnset` leaves an earlier choice as it was. */
export async function setFollow(
  tx: Queryable,
  follow: { userId: string; roomId: string; following: boolean; at: Date },
  onlyIfUnset = false,
): Promise<void> {
  await tx.query(
    `INSERT INTO room_follows (user_id, deal_room_id, following, at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (user_id, deal_room_id) DO ${onlyIfUnset ? 'NOTHING' : 'UPDATE SET following = excluded.following, at = excluded.at'}`,
    [follow.userId, follow.roomId, follow.following, follow.at],
  );
}

export async function follows(db: Queryable, userId: string, roomId: string): Promise<boolean> {
  const [row] = await db.query<{ following: boolean }>(
    'SELECT following FROM room_follows WHERE user_id = $1 AND deal_room_id = $2',
    [userId, roomId],
  );
  return row?.following ?? false;
}

export async function setVisitEmailsRow(
  tx: Queryable,
  userId: string,
  choice: VisitEmails,
  digestHour: number,
  at: Date,
): Promise<void> {
  await tx.query('UPDATE users SET visit_emails = $2, digest_hour = $3, updated_at = $4 WHERE id = $1', [
    userId,
    choice,
    digestHour,
    at,
  ]);
}

export async function visitEmailsOf(
  db: Queryable,
  userId: string,
): Promise<{ visit_emails: VisitEmails; digest_hour: number } | undefined> {
  const [row] = await db.query<{ visit_emails: VisitEmails; digest_hour: number }>(
    'SELECT visit_emails, digest_hour FROM users WHERE id = $1',
    [userId],
  );
  return row;
}

/** A notification the worker holds, with what composing it needs. */
export interface ClaimedNotification {
  id: string;
  kind: 'visit' | 'digest';
  team_id: string;
  user_id: string;
  email: string;
  timezone: string;
  deal_room_id: string | null;
  visit_id: string | null;
  viewer_id: string | null;
  digest_day: string | null;
  attempts: number;
}

/**
 * Claims due notifications (and those whose claim lapsed: the process holding them died)
 * for `leaseMs`, skipping those another worker holds.
 */
export async function claimDueNotifications(
  db: Queryable,
  now: Date,
  leaseUntil: Date,
  limit: number,
): Promise<ClaimedNotification[]> {
  return db.query<ClaimedNotification>(
    `WITH due AS (
       SELECT id FROM notifications
        WHERE (state = 'pending' AND due_at <= $1) OR (state = 'sending' AND lease_until < $1)
        ORDER BY due_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ), claimed AS (
       UPDATE notifications n SET state = 'sending', lease_until = $2, attempts = n.attempts + 1
         FROM due WHERE n.id = due.id
       RETURNING n.id, n.kind, n.team_id, n.user_id, n.deal_room_id, n.visit_id, n.viewer_id,
                 to_char(n.digest_day, 'YYYY-MM-DD') AS digest_day, n.attempts
     )
     SELECT c.*, u.email, coalesce(u.timezone, t.timezone) AS timezone
       FROM claimed c JOIN users u ON u.id = c.user_id JOIN teams t ON t.id = c.team_id`,
    [now, leaseUntil, limit],
  );
}

/** What was sent (or, without SMTP, kept to show): the notification's final state. */
export async function finishNotification(
  db: Queryable,
  id: string,
  done: { state: 'sent' | 'kept'; subject: string; text: string; unsubscribeSha256: string | null; at: Date },
): Promise<void> {
  await db.query(
    `UPDATE notifications SET state = $2, subject = $3, body_text = $4, unsubscribe_sha256 = $5, sent_at = $6,
            lease_until = NULL, error = NULL
      WHERE id = $1`,
    [id, done.state, done.subject, done.text, done.unsubscribeSha256, done.at],
  );
}

/** A failed send: tried again at `retryAt`, or given up (failed) when `retryAt` is null. */
export async function failNotification(
  db: Queryable,
  id: string,
  error: string,
  retryAt: Date | null,
): Promise<void> {
  await db.query(
    `UPDATE notifications SET state = CASE WHEN $3::timestamptz IS NULL THEN 'failed' ELSE 'pending' END,
            due_at = coalesce($3, due_at), lease_until = NULL, error = $2
      WHERE id = $1`,
    [id, error.slice(0, 500), retryAt],
  );
}

/** A notification with nothing left to say (its visit or room is gone): dropped. */
export async function dropNotification(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM notifications WHERE id = $1', [id]);
}

/** The notification an unsubscribe link stands for. */
export async function notificationByUnsubscribe(
  db: Queryable,
  sha256: string,
): Promise<
  | { user_id: string; kind: 'visit' | 'digest'; deal_room_id: string | null; room_name: string | null }
  | undefined
> {
  const [row] = await db.query<{
    user_id: string;
    kind: 'visit' | 'digest';
    deal_room_id: string | null;
    room_name: string | null;
  }>(
    `SELECT n.user_id, n.kind, n.deal_room_id, r.name AS room_name
       FROM notifications n LEFT JOIN deal_rooms r ON r.id = n.deal_room_id
      WHERE n.unsubscribe_sha256 = $1`,
    [sha256],
  );
  return row;
}

/** A user's notifications, newest first: what was sent, kept or is still due. */
export interface NotificationRow {
  id: string;
  kind: 'visit' | 'digest';
  state: string;
  subject: string | null;
  body_text: string | null;
  due_at: Date;
  sent_at: Date | null;
  created_at: Date;
  viewer_id: string | null;
  room_name: string | null;
  error: string | null;
}

export async function userNotifications(
  db: Queryable,
  userId: string,
  limit: number,
): Promise<NotificationRow[]> {
  return db.query<NotificationRow>(
    `SELECT n.id, n.kind, n.state, n.subject, n.body_text, n.due_at, n.sent_at, n.created_at, n.viewer_id,
            r.name AS room_name, n.error
       FROM notifications n LEFT JOIN deal_rooms r ON r.id = n.deal_room_id
      WHERE n.user_id = $1 ORDER BY n.created_at DESC, n.id DESC LIMIT $2`,
    [userId, limit],
  );
}

/** What a visit email says: the visit, its viewer, link and room, and whether it is a return. */
export interface VisitFacts {
  at: Date;
  verified: boolean;
  email: string;
  name: string;
  link_id: string;
  link_name: string;
  room_name: string;
  returning: boolean;
  /** When the same viewer's next visit through the link started (the reading of this one ends there). */
  until: Date | null;
}

export async function visitFacts(db: Queryable, visitId: string): Promise<VisitFacts | undefined> {
  const [row] = await db.query<VisitFacts>(
    `SELECT s.at, s.verified, w.email, w.name, s.link_id, l.name AS link_name, r.name AS room_name,
            EXISTS (SELECT 1 FROM visits p WHERE p.viewer_id = s.viewer_id AND p.at < s.at) AS returning,
            (SELECT min(x.at) FROM visits x WHERE x.viewer_id = s.viewer_id AND x.link_id = s.link_id AND x.at > s.at)
              AS until
       FROM visits s JOIN viewers w ON w.id = s.viewer_id JOIN links l ON l.id = s.link_id
       JOIN deal_rooms r ON r.id = s.deal_room_id
      WHERE s.id = $1`,
    [visitId],
  );
  return row;
}

/** What a visit read: each document opened through its link since it started, pages and active time. */
export async function visitReading(
  db: Queryable,
  visit: { viewerId: string; linkId: string; from: Date; until: Date | null },
): Promise<{ title: string; seconds: number; pages: { page: number; seconds: number }[] }[]> {
  const rows = await db.query<{
    title: string;
    seconds: number;
    pages: { page: number; seconds: number }[] | null;
  }>(
    `SELECT coalesce(d.display_name, d.name) AS title, sum(v.duration_seconds)::int AS seconds,
            (SELECT json_agg(json_build_object('page', p.page, 'seconds', p.seconds) ORDER BY p.page)
               FROM (SELECT vp.page, sum(vp.active_seconds)::int AS seconds
                       FROM view_pages vp JOIN views x ON x.id = vp.view_id
                      WHERE x.viewer_id = $1 AND x.link_id = $2 AND x.document_id = d.id
                        AND x.started_at >= $3 AND ($4::timestamptz IS NULL OR x.started_at < $4)
                        AND vp.active_seconds > 0
                      GROUP BY vp.page) p) AS pages
       FROM views v JOIN documents d ON d.id = v.document_id
      WHERE v.viewer_id = $1 AND v.link_id = $2 AND v.started_at >= $3
        AND ($4::timestamptz IS NULL OR v.started_at < $4)
      GROUP BY d.id, d.display_name, d.name, d.position
      ORDER BY d.position, d.id`,
    [visit.viewerId, visit.linkId, visit.from, visit.until],
  );
  return rows.map((row) => ({ ...row, pages: row.pages ?? [] }));
}

/** Downloads refused to the viewer through the link since the visit started. */
export async function visitRefusedDownloads(
  db: Queryable,
  visit: { viewerId: string; linkId: string; from: Date; until: Date | null },
): Promise<string[]> {
  const rows = await db.query<{ title: string }>(
    `SELECT DISTINCT coalesce(d.display_name, d.name) AS title
       FROM download_refusals x JOIN documents d ON d.id = x.document_id
      WHERE x.viewer_id = $1 AND x.link_id = $2 AND x.at >= $3 AND ($4::timestamptz IS NULL OR x.at < $4)
      ORDER BY 1`,
    [visit.viewerId, visit.linkId, visit.from, visit.until],
  );
  return rows.map((row) => row.title);
}

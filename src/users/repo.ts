import type { Queryable } from '../db/database.ts';
import { scopeOf } from '../write/transaction.ts';
import type { Role } from './roles.ts';

export interface UserRow {
  id: string;
  team_id: string;
  email: string;
  role: Role;
  password_hash: string | null;
  created_at: Date;
}

export interface SessionRow {
  id: string;
  user_id: string;
  csrf_token: string;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  user_agent: string;
  address: string;
}

const USER = 'id, team_id, email, role, password_hash, created_at';

export async function userByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(`SELECT ${USER} FROM users WHERE lower(email) = lower($1)`, [email]);
  return row;
}

/** A user, within the write's team (scopeOf): another team's is not found. */
export async function userById(db: Queryable, id: string, lock = false): Promise<UserRow | undefined> {
  const [row] = await db.query<UserRow>(
    `SELECT ${USER} FROM users WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2)${lock ? ' FOR UPDATE' : ''}`,
    [id, scopeOf(db)],
  );
  return row;
}

export async function teamUsers(db: Queryable, teamId: string): Promise<UserRow[]> {
  return db.query<UserRow>(`SELECT ${USER} FROM users WHERE team_id = $1 ORDER BY created_at, email`, [
    teamId,
  ]);
}

export async function insertUser(
  tx: Queryable,
  user: { id: string; teamId: string; email: string; role: Role },
  at: Date,
): Promise<UserRow> {
  const [row] = await tx.query<UserRow>(
    `INSERT INTO users (id, team_id, email, role, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)
     RETURNING ${USER}`,
    [user.id, user.teamId, user.email, user.role, at],
  );
  return row as UserRow;
}

export async function setUserRole(tx: Queryable, id: string, role: Role, at: Date): Promise<void> {
  await tx.query('UPDATE users SET role = $2, updated_at = $3 WHERE id = $1', [id, role, at]);
}

export async function setPasswordHash(tx: Queryable, id: string, hash: string, at: Date): Promise<void> {
  await tx.query('UPDATE users SET password_hash = $2, updated_at = $3 WHERE id = $1', [id, hash, at]);
}

export async function deleteUserRow(tx: Queryable, id: string): Promise<void> {
  await tx.query('DELETE FROM users WHERE id = $1', [id]);
}

export async function countOwners(tx: Queryable, teamId: string): Promise<number> {
  const [row] = await tx.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM users WHERE team_id = $1 AND role = 'owner'",
    [teamId],
  );
  return row?.n ?? 0;
}

/** Ends the open invitations of a user (a newer one replaces them). */
export async function withdrawInvitations(tx: Queryable, userId: string, at: Date): Promise<void> {
  await tx.query(
    'UPDATE invitations SET expires_at = $2 WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2',
    [userId, at],
  );
}

export async function insertInvitation(
  tx: Queryable,
  invitation: { tokenHash: string; userId: string; expiresAt: Date },
  at: Date,
): Promise<void> {
  await tx.query(
    'INSERT INTO invitations (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)',
    [invitation.tokenHash, invitation.userId, at, invitation.expiresAt],
  );
}

export interface InvitationRow {
  user_id: string;
  email: string;
  team_id: string;
  expires_at: Date;
  used_at: Date | null;
}

export async function invitationByHash(
  db: Queryable,
  tokenHash: string,
  lock = false,
): Promise<InvitationRow | undefined> {
  const [row] = await db.query<InvitationRow>(
    `SELECT i.user_id, u.email, u.team_id, i.expires_at, i.used_at
       FROM invitations i JOIN users u ON u.id = i.user_id WHERE i.token_hash = $1${lock ? ' FOR UPDATE OF i' : ''}`,
    [tokenHash],
  );
  return row;
}

export async function useInvitation(tx: Queryable, tokenHash: string, at: Date): Promise<void> {
  await tx.query('UPDATE invitations SET used_at = $2 WHERE token_hash = $1', [tokenHash, at]);
}

/** Invitations of a team not yet accepted, newest first. */
export async function openInvitations(
  db: Queryable,
  teamId: string,
  now: Date,
): Promise<{ email: string; role: Role; expires_at: Date }[]> {
  return db.query(
    `SELECT u.email, u.role, max(i.expires_at) AS expires_at FROM invitations i JOIN users u ON u.id = i.user_id
      WHERE u.team_id = $1 AND i.used_at IS NULL AND i.expires_at > $2 AND u.password_hash IS NULL
      GROUP BY u.email, u.role ORDER BY max(i.expires_at) DESC`,
    [teamId, now],
  );
}

export async function insertSession(
  tx: Queryable,
  session: {
    id: string;
    tokenHash: string;
    userId: string;
    csrfToken: string;
    expiresAt: Date;
    userAgent: string;
    address: string;
  },
  at: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO user_sessions (id, token_hash, user_id, csrf_token, created_at, last_seen_at, expires_at, user_agent, address)
     VALUES ($1, $2, $3, $4, $5, $5, $6, $7, $8)`,
    [
      session.id,
      session.tokenHash,
      session.userId,
      session.csrfToken,
      at,
      session.expiresAt,
      session.userAgent,
      session.address,
    ],
  );
}

export interface SignedIn {
  session: SessionRow;
  user: UserRow;
  team_name: string;
  /** The zone the person reads times in: their own, or the team's. */
  timezone: string;
}

/** The session a cookie's token stands for, with its user, while it has not expired. */
export async function sessionByHash(
  db: Queryable,
  tokenHash: string,
  now: Date,
): Promise<SignedIn | undefined> {
  const [row] = await db.query<
    SessionRow & {
      u_id: string;
      team_id: string;
      email: string;
      role: Role;
      password_hash: string | null;
      u_created_at: Date;
      team_name: string;
      timezone: string;
    }
  >(
    `SELECT s.id, s.user_id, s.csrf_token, s.created_at, s.last_seen_at, s.expires_at, s.user_agent, s.address,
            u.id AS u_id, u.team_id, u.email, u.role, u.password_hash, u.created_at AS u_created_at, t.name AS team_name,
            coalesce(u.timezone, t.timezone) AS timezone
       FROM user_sessions s JOIN users u ON u.id = s.user_id JOIN teams t ON t.id = u.team_id
      WHERE s.token_hash = $1 AND s.expires_at > $2`,
    [tokenHash, now],
  );
  if (!row) return undefined;
  return {
    session: {
      id: row.id,
      user_id: row.user_id,
      csrf_token: row.csrf_token,
      created_at: row.created_at,
      last_seen_at: row.last_seen_at,
      expires_at: row.expires_at,
      user_agent: row.user_agent,
      address: row.address,
    },
    user: {
      id: row.u_id,
      team_id: row.team_id,
      email: row.email,
      role: row.role,
      password_hash: row.password_hash,
      created_at: row.u_created_at,
    },
    team_name: row.team_name,
    timezone: row.timezone,
  };
}

export async function touchSession(db: Queryable, id: string, at: Date): Promise<void> {
  await db.query('UPDATE user_sessions SET last_seen_at = $2 WHERE id = $1', [id, at]);
}

export async function userSessions(db: Queryable, userId: string, now: Date): Promise<SessionRow[]> {
  return db.query<SessionRow>(
    `SELECT id, user_id, csrf_token, created_at, last_seen_at, expires_at, user_agent, address
       FROM user_sessions WHERE user_id = $1 AND expires_at > $2 ORDER BY last_seen_at DESC`,
    [userId, now],
  );
}

export async function deleteSession(db: Queryable, id: string, userId: string): Promise<boolean> {
  const rows = await db.query('DELETE FROM user_sessions WHERE id = $1 AND user_id = $2 RETURNING id', [
    id,
    userId,
  ]);
  return rows.length > 0;
}

/** Ends every session of a user, but `keep` (the one changing its password). */
export async function deleteUserSessions(tx: Queryable, userId: string, keep?: string): Promise<void> {
  await tx.query('DELETE FROM user_sessions WHERE user_id = $1 AND ($2::uuid IS NULL OR id <> $2::uuid)', [
    userId,
    keep ?? null,
  ]);
}

export async function recentFailures(
  db: Queryable,
  subjects: string[],
  since: Date,
): Promise<{ subject: string; count: number; oldest: Date | null }[]> {
  return db.query(
    `SELECT subject, count(*)::int AS count, min(failed_at) AS oldest FROM sign_in_failures
      WHERE subject = ANY ($1::text[]) AND failed_at > $2 GROUP BY subject`,
    [subjects, since],
  );
}

export async function recordFailures(
  db: Queryable,
  subjects: string[],
  at: Date,
  attempt: string,
): Promise<void> {
  await db.query(
    'INSERT INTO sign_in_failures (subject, failed_at, attempt) SELECT unnest($1::text[]), $2, $3',
    [subjects, at, attempt],
  );
}

/** A sign-in whose password was right is no failure. */
export async function forgetAttempt(db: Queryable, attempt: string): Promise<void> {
  await db.query('DELETE FROM sign_in_failures WHERE attempt = $1', [attempt]);
}

export async function setUserTimezone(
  db: Queryable,
  id: string,
  zone: string | null,
  at: Date,
): Promise<void> {
  await db.query('UPDATE users SET timezone = $2, updated_at = $3 WHERE id = $1', [id, zone, at]);
}

/** A user's own timezone (null: the team's) and the team's. */
export async function userTimezones(
  db: Queryable,
  id: string,
): Promise<{ own: string | null; team: string }> {
  const [row] = await db.query<{ own: string | null; team: string }>(
    'SELECT u.timezone AS own, t.timezone AS team FROM users u JOIN teams t ON t.id = u.team_id WHERE u.id = $1',
    [id],
  );
  return row ?? { own: null, team: 'UTC' };
}

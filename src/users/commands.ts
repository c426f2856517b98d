import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { ApiError, fail } from '../core/errors.ts';
import { isEmail } from '../core/fields.ts';
import { isUuid, newId } from '../core/ids.ts';
import { hashPassword, UNMATCHABLE_HASH, verifyPassword } from '../core/passwords.ts';
import { timezoneOf } from '../core/zones.ts';
import type { Queryable } from '../db/database.ts';
import { teamExists } from '../teams/repo.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import * as repo from './repo.ts';
import { isRole, type Role } from './roles.ts';

/** An invitation address works this long, once. */
export const INVITATION_DAYS = 7;
/** A session lasts this long from sign-in (and ends sooner at sign-out or a password change). */
export const SESSION_DAYS = 14;
/** Sign-in failures that make an account, or a client address, wait (contract.md section 8). */
/** Failed sign-ins allowed in the window: per account and client address, and per address alone. */
export const SIGN_IN_FAILURES = {
  perAccountAndAddress: 10,
  perAddress: 30,
  windowMs: 15 * 60 * 1000,
} as const;
export const PASSWORD_LENGTH = { min: 10, max: 200 } as const;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const token = (): string => randomBytes(32).toString('base64url');

export interface Invitation {
  userId: string;
  email: string;
  role: Role;
  /** The path of the address (`/invite/<token>`), shown once. */
  path: string;
  expiresAt: Date;
}

/**
 * Invites a person to a team: a user without a password and a single-use token good for 7
 * days. Inviting an address again (not yet accepted) gives a fresh token; an address that
 * already has an account elsewhere, or has accepted, is a conflict.
 */
export async function inviteUser(
  ctx: WriteContext,
  input: { teamId: string; email: string; role: Role },
): Promise<Invitation> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) {
    throw new ApiError('validation_error', 'Enter a valid email');
  }
  if (!isRole(input.role)) throw new ApiError('validation_error', 'Role must be owner, admin or member');
  if (!isUuid(input.teamId) || !inScope(ctx, input.teamId)) throw fail('teamNotFound');
  return inWrite(ctx, async (tx) => {
    if (!(await teamExists(tx, input.teamId))) throw fail('teamNotFound');
    let user = await repo.userByEmail(tx, email);
    if (user && (user.team_id !== input.teamId || user.password_hash !== null)) {
      throw new ApiError('conflict', 'This email already has an account');
    }
    if (user) await repo.setUserRole(tx, user.id, input.role, tx.now);
    else
      user = await repo.insertUser(
        tx,
        { id: newId(tx.now.getTime()), teamId: input.teamId, email, role: input.role },
        tx.now,
      );
    // A new invitation replaces any earlier one still open: only the latest address works.
    await repo.withdrawInvitations(tx, user.id, tx.now);
    const secret = token();
    const expiresAt = new Date(tx.now.getTime() + INVITATION_DAYS * 86_400_000);
    await repo.insertInvitation(tx, { tokenHash: sha256(secret), userId: user.id, expiresAt }, tx.now);
    return { userId: user.id, email, role: input.role, path: `/invite/${secret}`, expiresAt };
  });
}

/** Whether a write may touch the team: its own, or any when it has no team scope. */
function inScope(ctx: WriteContext, teamId: string): boolean {
  return ctx.teamId === undefined || ctx.teamId === teamId;
}

/** The invitation an address stands for, while it can still be accepted. */
export async function openInvitation(db: Queryable, secret: string, now: Date) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(secret)) return undefined;
  const invitation = await repo.invitationByHash(db, sha256(secret));
  if (!invitation || invitation.used_at !== null || invitation.expires_at.getTime() <= now.getTime())
    return undefined;
  return invitation;
}

export function checkNewPassword(password: string, confirm: string): string | undefined {
  if (password.length < PASSWORD_LENGTH.min) return `Use at least ${PASSWORD_LENGTH.min} characters`;
  if (password.length > PASSWORD_LENGTH.max) return `Use at most ${PASSWORD_LENGTH.max} characters`;
  if (password !== confirm) return 'The passwords do not match';
  return undefined;
}

export interface NewSession {
  /** The cookie's value, shown to the browser once; only its hash is kept. */
  token: string;
  userId: string;
}

interface Client {
  userAgent: string;
  address: string;
}

async function openSession(
  tx: Queryable & { now: Date },
  userId: string,
  client: Client,
): Promise<NewSession> {
  const secret = token();
  await repo.insertSession(
    tx,
    {
      id: newId(tx.now.getTime()),
      tokenHash: sha256(secret),
      userId,
      csrfToken: token(),
      expiresAt: new Date(tx.now.getTime() + SESSION_DAYS * 86_400_000),
      userAgent: client.userAgent.slice(0, 300),
      address: client.address,
    },
    tx.now,
  );
  return { token: secret, userId };
}

/** Sets the invited person's password, uses up the invitation, and signs them in. */
export async function acceptInvitation(
  ctx: WriteContext,
  secret: string,
  password: string,
  client: Client,
): Promise<NewSession> {
  const hash = await hashPassword(password);
  return inWrite(ctx, async (tx) => {
    const invitation = await repo.invitationByHash(tx, sha256(secret), true);
    if (!invitation || invitation.used_at !== null || invitation.expires_at.getTime() <= tx.now.getTime()) {
      throw new ApiError('not_found', 'This invitation is no longer valid');
    }
    await repo.useInvitation(tx, sha256(secret), tx.now);
    await repo.setPasswordHash(tx, invitation.user_id, hash, tx.now);
    return openSession(tx, invitation.user_id, client);
  });
}

export type SignInResult =
  | { ok: true; session: NewSession }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'throttled'; retryAfterSeconds: number };

/**
 * Signs a person in by email and password. A wrong email and a wrong password are one answer.
 * Failures are counted per account and client address (10 in 15 minutes) and per address (30):
 * an account is never locked for an address that has not failed. Each attempt is counted
 * before any password is checked, under a lock on its subjects, so a burst sent at once is
 * counted one by one; a right password takes its own attempt back.
 */
export async function signIn(
  ctx: WriteContext,
  email: string,
  password: string,
  client: Client,
): Promise<SignInResult> {
  const account = email.trim().toLowerCase();
  const limits = new Map([
    [`account:${account}|address:${client.address}`, SIGN_IN_FAILURES.perAccountAndAddress],
    [`address:${client.address}`, SIGN_IN_FAILURES.perAddress],
  ]);
  const subjects = [...limits.keys()];
  const attempt = randomUUID();
  const throttled = await inWrite(ctx, async (tx): Promise<SignInResult | undefined> => {
    await exclusiveGuards(tx, subjects);
    const failures = await repo.recentFailures(
      tx,
      subjects,
      new Date(tx.now.getTime() - SIGN_IN_FAILURES.windowMs),
    );
    const blocked = failures.filter((f) => f.count >= (limits.get(f.subject) ?? 0) && f.oldest);
    if (blocked.length > 0) {
      const until = Math.max(...blocked.map((f) => (f.oldest as Date).getTime() + SIGN_IN_FAILURES.windowMs));
      return {
        ok: false,
        reason: 'throttled',
        retryAfterSeconds: Math.max(1, Math.ceil((until - tx.now.getTime()) / 1000)),
      };
    }
    await repo.recordFailures(tx, subjects, tx.now, attempt);
    return undefined;
  });
  if (throttled) return throttled;
  const user =
    password.length <= PASSWORD_LENGTH.max ? await repo.userByEmail(ctx.db, email.trim()) : undefined;
  // A missing account costs the same scrypt as a wrong password, so timing tells nothing.
  const matches = await verifyPassword(password, user?.password_hash ?? UNMATCHABLE_HASH);
  if (!user?.password_hash || !matches) return { ok: false, reason: 'wrong' };
  const session = await inWrite(ctx, async (tx) => {
    await repo.forgetAttempt(tx, attempt);
    return openSession(tx, user.id, client);
  });
  return { ok: true, session };
}

/** Changes a password after checking the current one; every other session of the user ends. */
export async function changePassword(
  ctx: WriteContext,
  user: { id: string; sessionId: string },
  current: string,
  next: string,
): Promise<boolean> {
  const row = await repo.userById(ctx.db, user.id);
  if (!row?.password_hash || !(await verifyPassword(current, row.password_hash))) return false;
  const hash = await hashPassword(next);
  await inWrite(ctx, async (tx) => {
    await repo.setPasswordHash(tx, user.id, hash, tx.now);
    await repo.deleteUserSessions(tx, user.id, user.sessionId);
  });
  return true;
}

/** The zone a user reads the dashboard in: an IANA name, or null for the team's. */
export async function setOwnTimezone(
  ctx: WriteContext,
  userId: string,
  zone: string | null,
): Promise<string | null> {
  const kept = zone === null ? null : timezoneOf(zone);
  if (kept === undefined)
    throw new ApiError('validation_error', 'timezone must be an IANA timezone such as Europe/Paris');
  await inWrite(ctx, (tx) => repo.setUserTimezone(tx, userId, kept, tx.now));
  return kept;
}

/** A teammate's change of role, as the audit log describes it. */
export interface RoleChange {
  id: string;
  email: string;
  before: Role;
  after: Role;
}

/** Changes a teammate's role (of the write's team); a team always keeps one owner. */
export async function changeRole(ctx: WriteContext, userId: string, role: Role): Promise<RoleChange> {
  if (!isRole(role)) throw new ApiError('validation_error', 'Role must be owner, admin or member');
  if (!isUuid(userId)) throw fail('userNotFound');
  return inWrite(ctx, async (tx) => {
    const user = await repo.userById(tx, userId, true);
    if (!user) throw fail('userNotFound');
    if (user.role === 'owner' && role !== 'owner' && (await ownersLeft(tx, user.team_id)) <= 1) {
      throw fail('lastOwner');
    }
    await repo.setUserRole(tx, userId, role, tx.now);
    return { id: userId, email: user.email, before: user.role, after: role };
  });
}

/**
 * The team's owners, counted under a lock on the team's owner set: two owners demoting or
 * removing each other at once are decided one after the other, so one of them stays.
 */
async function ownersLeft(tx: Queryable, teamId: string): Promise<number> {
  await exclusiveGuards(tx, [`owners:${teamId}`]);
  return repo.countOwners(tx, teamId);
}

/** Removes a teammate (of the write's team; their sessions end with them); a team always keeps one owner. */
export async function removeUser(
  ctx: WriteContext,
  userId: string,
): Promise<{ id: string; email: string; role: Role }> {
  if (!isUuid(userId)) throw fail('userNotFound');
  return inWrite(ctx, async (tx) => {
    const user = await repo.userById(tx, userId, true);
    if (!user) throw fail('userNotFound');
    if (user.role === 'owner' && (await ownersLeft(tx, user.team_id)) <= 1) {
      throw fail('lastOwner');
    }
    await repo.deleteUserRow(tx, userId);
    return { id: userId, email: user.email, role: user.role };
  });
}

/** Ends one session of a user (signing out, or ending it from another browser); whether it was live. */
export async function endSession(ctx: WriteContext, userId: string, sessionId: string): Promise<boolean> {
  if (!isUuid(sessionId)) return false;
  return inWrite(ctx, async (tx) => {
    if (!(await repo.userById(tx, userId))) return false;
    return repo.deleteSession(tx, sessionId, userId);
  });
}

import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { UserActor } from '../audit/repo.ts';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { cookie, readCookies } from '../link-page/session.ts';
import { SESSION_DAYS, sha256 } from '../users/commands.ts';
import { sessionByHash, touchSession } from '../users/repo.ts';
import { canChange, canManageUsers, type Role } from '../users/roles.ts';
import { refusal } from './errors.ts';

export const USER_COOKIE = 'dr_user';
/**
 * The session cookie's name: over https with the `__Host-` prefix, which a browser accepts
 * only from this host, secure and for the whole site, so no sibling domain can set or
 * overwrite it.
 */
export const userCookieName = (secure: boolean): string => (secure ? `__Host-${USER_COOKIE}` : USER_COOKIE);
/** A session's last-seen time is written at most this often. */
const TOUCH_EVERY_MS = 60_000;
/** A session not used for this long has ended (DASHBOARD_IDLE_HOURS; 14 days at most in any case). */
export const DEFAULT_SESSION_IDLE_MS = 12 * 60 * 60 * 1000;

/** The signed-in person a dashboard request is made by. */
export interface DashboardUser {
  id: string;
  email: string;
  role: Role;
  teamId: string;
  teamName: string;
  /** The IANA zone every time on their pages is shown in (theirs, or the team's). */
  timezone: string;
  sessionId: string;
  csrf: string;
}

export const actorOf = (user: DashboardUser): UserActor => ({
  kind: 'user',
  teamId: user.teamId,
  userId: user.id,
  email: user.email,
});

export function sessionCookie(token: string, secure: boolean): string {
  return cookie(userCookieName(secure), token, { path: '/', maxAgeSeconds: SESSION_DAYS * 86_400, secure });
}

export function endedSessionCookie(secure: boolean): string {
  return cookie(userCookieName(secure), '', { path: '/', maxAgeSeconds: 0, secure });
}

/** The user of a request's session cookie; undefined when it names no live session (or was tampered with). */
export async function currentUser(
  db: Database,
  clock: Clock,
  request: FastifyRequest,
  secure: boolean,
  idleMs = DEFAULT_SESSION_IDLE_MS,
): Promise<DashboardUser | undefined> {
  const token = readCookies(request.headers.cookie).get(userCookieName(secure));
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const now = clock.now();
  const found = await sessionByHash(db, sha256(token), now);
  if (!found) return undefined;
  // Left unused for the idle time, a session has ended: the next request signs in again.
  if (now.getTime() - found.session.last_seen_at.getTime() > idleMs) return undefined;
  if (now.getTime() - found.session.last_seen_at.getTime() > TOUCH_EVERY_MS) {
    await touchSession(db, found.session.id, now);
  }
  return {
    id: found.user.id,
    email: found.user.email,
    role: found.user.role,
    teamId: found.user.team_id,
    teamName: found.team_name,
    timezone: found.timezone,
    sessionId: found.session.id,
    csrf: found.session.csrf_token,
  };
}

/** A signed-in user, or the sign-in page (a GET comes back here after it). */
export async function requireUser(
  db: Database,
  clock: Clock,
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  idleMs?: number,
): Promise<DashboardUser | undefined> {
  const user = await currentUser(db, clock, request, secure, idleMs);
  if (user) return user;
  const next = request.method === 'GET' ? `?next=${encodeURIComponent(request.url)}` : '';
  await reply.code(303).header('Location', `/login${next}`).send();
  return undefined;
}

/**
 * What a route lets a signed-in user do, declared in its config (`config: { may }`): read
 * (everyone), change the team's things (owners and admins), manage its users (owners), or act
 * on their own account (everyone).
 */
export type May = 'read' | 'change' | 'manage-users' | 'own-account';

const ALLOWED: Record<May, (role: Role) => boolean> = {
  read: () => true,
  change: canChange,
  'manage-users': canManageUsers,
  'own-account': () => true,
};

/** The page refusing a role what its route declares it needs. */
export function checkRole(user: DashboardUser, may: May): void {
  if (ALLOWED[may](user.role)) return;
  throw refusal(may === 'manage-users' ? 'ownersOnly' : 'readOnly');
}

/** A change request's CSRF token (a form field `_csrf` or the `X-CSRF-Token` header) must be the session's. */
export function checkCsrf(
  request: FastifyRequest,
  user: DashboardUser,
  fields: Readonly<Record<string, unknown>> | undefined = formFields(request.body),
): void {
  const sent = fields?._csrf ?? request.headers['x-csrf-token'];
  if (!sameToken(sent, user.csrf)) {
    throw refusal('formExpired');
  }
}

/** A parsed form's fields (the web app parses urlencoded bodies into an object of strings). */
function formFields(body: unknown): Readonly<Record<string, unknown>> | undefined {
  return body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : undefined;
}

export function sameToken(sent: unknown, expected: string): boolean {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

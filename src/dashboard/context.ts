import type { FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { AuditEntry } from '../audit/repo.ts';
import type { Clock } from '../core/clock.ts';
import { ApiError, type ErrorCode, type ErrorName } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { IdParams } from '../core/schemas.ts';
import type { Database } from '../db/database.ts';
import type { WebhookSender } from '../delivery/sender.ts';
import type { Signer } from '../link-page/session.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { FileWork } from '../rendering/pool.ts';
import type { TypedFastify } from '../routing/types.ts';
import type { WriteContexts } from '../write/context.ts';
import type { WriteContext } from '../write/transaction.ts';
import { actorOf, type DashboardUser } from './auth.ts';
import { DashboardError, notFound, refusal } from './errors.ts';
import { FormBody } from './forms.ts';
import type { LiveActivity } from './live.ts';

export interface DashboardDeps {
  db: Database;
  clock: Clock;
  /** The process's write contexts (write/context.ts). */
  writeContext: WriteContexts;
  appUrl: string;
  secureCookies: boolean;
  signer: () => Promise<Signer>;
  fileMaxBytes: number;
  /** DASHBOARD_IDLE_HOURS, in ms: a session unused this long has ended. */
  sessionIdleMs?: number | undefined;
  /** The threads that read files' contents (rendering/pool.ts). */
  files: FileWork;
  /** Mails invitations when SMTP_URL is set; otherwise the address is only shown. */
  mailer?: Mailer | undefined;
  /** Sends the test event of an endpoint's page (the worker's sender, its address rules). */
  sender: () => WebhookSender;
  /** The process's live feeds (LISTEN on the activity channel), for the pages' event streams. */
  live: LiveActivity;
}

/**
 * A route handler given the signed-in user (the dashboard plugin's hook has set it); the
 * request keeps the types its route's schema gives it.
 */
export function withUser<R extends FastifyRequest>(
  handler: (request: R, reply: FastifyReply, user: DashboardUser) => Promise<unknown>,
) {
  return (request: R, reply: FastifyReply) => handler(request, reply, request.user);
}

/**
 * The context of a change the user makes: they act, within their team (another team's id is
 * not found by any loader), and the audit entry `audit` describes is written in the change's
 * own transaction.
 */
export function userWrite<T>(
  deps: DashboardDeps,
  user: DashboardUser,
  audit: (result: T) => AuditEntry,
): WriteContext {
  return deps.writeContext({
    actor: actorOf(user),
    teamId: user.teamId,
    audit: (result) => audit(result as T),
  });
}

/**
 * Runs a domain function as the user: the same function, transaction and events as the
 * management API, with the audit log entry written in that transaction. `after` describes
 * the result for the log (the result itself unless given).
 */
export async function asUser<T>(
  deps: DashboardDeps,
  user: DashboardUser,
  entry: Omit<AuditEntry, 'after'> & { after?: (result: T) => unknown },
  work: (ctx: WriteContext) => Promise<T>,
): Promise<T> {
  const ctx = userWrite<T>(deps, user, (result) => ({
    action: entry.action,
    subject: {
      type: entry.subject.type,
      id: entry.subject.id ?? (result as { id?: string } | undefined)?.id,
    },
    before: entry.before,
    after: entry.after ? entry.after(result) : result,
  }));
  try {
    return await work(ctx);
  } catch (err) {
    throw asPage(err);
  }
}

/** The page each refusal of the domain is shown as, in the domain's own words. */
const PAGE_OF: Partial<Record<ErrorCode, ErrorName>> = {
  validation_error: 'entryRefused',
  conflict: 'cannotNow',
  payload_too_large: 'fileTooLarge',
  unsupported_media_type: 'unsupportedFile',
};

/** A refusal of the domain as the page it means: what was wrong, in its own words. */
export function asPage(err: unknown): unknown {
  if (!(err instanceof ApiError) || err instanceof DashboardError) return err;
  if (err.code === 'not_found') return notFound();
  const named = PAGE_OF[err.code];
  if (named) return refusal(named, { detail: err.message });
  return err;
}

export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('Location', to).send();
}

export function htmlPage(reply: FastifyReply, body: string, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/** A path id: a UUID (lower-cased), or the 404 page. */
export function idParam(request: FastifyRequest, name = 'id'): string {
  const value = (request.params as Record<string, string>)[name];
  if (!isUuid(value)) throw notFound();
  return value.toLowerCase();
}

export type Route = (app: TypedFastify, deps: DashboardDeps) => void;

/** Messages a redirect may name (`?done=`): fixed words, never text from the address. */
export const DONE: Record<string, string> = {
  'room-created': 'Room created.',
  'room-saved': 'Room saved.',
  'room-archived': 'Room archived.',
  'room-restored': 'Room restored.',
  'room-deleted': 'Room deleted.',
  uploaded: 'Document uploaded.',
  replaced:
    'File replaced: links show the new version as soon as its pages are drawn; earlier figures are kept below.',
  'document-saved': 'Document saved.',
  'document-deleted': 'Document deleted.',
  'link-created': 'Link created.',
  'link-saved': 'Link saved.',
  'link-deactivated': 'Link deactivated.',
  'link-deleted': 'Link deleted.',
  'key-revoked': 'Key revoked.',
  'team-saved': 'Team settings saved.',
  'timezone-saved': 'Your timezone is saved.',
  'notifications-saved': 'Your visit emails are saved.',
  'notifications-refused': 'That choice of visit emails is not one of the list.',
  followed: 'You follow this room: its visits reach you as you chose on your account.',
  unfollowed: 'You no longer follow this room.',
  'endpoint-saved': 'Endpoint saved.',
  'endpoint-removed': 'Endpoint removed.',
  replayed: 'Queued again for delivery.',
  'user-saved': 'User saved.',
  'user-removed': 'User removed.',
  'password-changed': 'Password changed. Your other sessions have ended.',
  'session-ended': 'Session ended.',
};

export function doneOf(request: FastifyRequest): string | undefined {
  const done = (request.query as Record<string, unknown> | undefined)?.done;
  return typeof done === 'string' ? DONE[done] : undefined;
}

/**
 * A change route about one subject of the team (`POST path/:id/...`): finds the subject (404
 * page when it is not the team's), runs the domain function as the user with its audit entry,
 * then sends the person on.
 */
export function subjectAction<S extends { id: string }, R>(
  app: TypedFastify,
  deps: DashboardDeps,
  path: string,
  o: {
    /** The route's schema: an id in the path and a form body unless it says otherwise. */
    schema?: FastifySchema;
    find: (user: DashboardUser, id: string) => Promise<S>;
    type: string;
    action: string;
    before?: (subject: S) => unknown;
    after?: (result: R) => unknown;
    run: (ctx: WriteContext, subject: S) => Promise<R>;
    next: (subject: S) => string;
  },
): void {
  app.post(
    path,
    { schema: o.schema ?? { params: IdParams, body: FormBody } },
    withUser(async (request, reply, user) => {
      const subject = await o.find(user, idParam(request));
      await asUser(
        deps,
        user,
        {
          action: o.action,
          subject: { type: o.type, id: subject.id },
          before: o.before?.(subject),
          ...(o.after ? { after: o.after } : {}),
        },
        (ctx) => o.run(ctx, subject),
      );
      return redirect(reply, o.next(subject));
    }),
  );
}

import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { TypedFastify } from '../routing/types.ts';
import { recordVisit } from '../tracking/commands.ts';
import { LinkClosedError, readingReportOf } from '../tracking/reading.ts';
import type { ViewerInput } from '../tracking/viewers.ts';
import { DocumentParams, type LinkPageDeps, type OpenDocument } from './deps.ts';
import { documentRoutes } from './documents.ts';
import { asPage, linkRefusal, NO_DOCUMENT, NO_LINK, NOT_ACTIVE } from './errors.ts';
import { gateRoutes } from './gate-routes.ts';
import type { LinkPageAction } from './limits.ts';
import { type PublicLink, type ShownLink, type ShownSelection, shownPages } from './repo.ts';
import {
  cookie,
  type LinkSession,
  newVisitorId,
  readCookies,
  SESSION_COOKIE,
  SESSION_DAYS,
  VISITOR_COOKIE,
  VISITOR_DAYS,
  VISITOR_ID,
} from './session.ts';
import { roomPage, viewerPage } from './views.ts';

export type { LinkPageDeps } from './deps.ts';

/** A session coming back after this long without a page is a new visit (contract.md section 7). */
export const VISIT_GAP_MS = 30 * 60 * 1000;

const LinkParams = Type.Object({ shortId: Type.String() });
/** `again`: the gate's first step, for a session at a later one (another email). */
const GateQuery = Type.Object({ again: Type.Optional(Type.String({ maxLength: 10 })) });
const ReportParams = Type.Object({ shortId: Type.String(), viewId: Type.String() });

/**
 * The public side: a share link's gate, its room page, the viewer, files, downloads and
 * reading reports; a plugin registered under /v (web/app.ts).
 */
export function linkPageRoutes(app: TypedFastify, deps: LinkPageDeps): void {
  const { write } = deps;

  /** The link, open: 404 when unknown, 410 when disabled or expired. */
  async function openLink(shortId: string, shown: ShownSelection = 'none'): Promise<ShownLink> {
    if (shortId.length > 200) throw NO_LINK();
    const link = await deps.findLink(shortId, shown);
    if (!link) throw NO_LINK();
    const now = write.clock.now().getTime();
    if (!link.enabled || (link.expires_at !== null && link.expires_at.getTime() <= now)) throw NOT_ACTIVE();
    return link;
  }

  /** The visitor id a request carries in its cookie (or was given by this request). */
  const visitors = new WeakMap<FastifyRequest, string>();
  function givenVisitor(request: FastifyRequest): string | undefined {
    const known = visitors.get(request);
    if (known) return known;
    const given = readCookies(request.headers.cookie).get(VISITOR_COOKIE);
    return given && VISITOR_ID.test(given) ? given : undefined;
  }

  /**
   * Counts a request towards the link pages' limits (limits.ts), per visitor cookie (or, before
   * it has one, per address) and per address; past them, a 429 page with Retry-After.
   */
  async function limit(action: LinkPageAction, request: FastifyRequest): Promise<void> {
    const visitor = givenVisitor(request) ?? `address:${request.ip}`;
    const wait = await deps.limiter.consume(action, visitor, request.ip, write.clock.now().getTime());
    if (wait !== undefined) {
      throw linkRefusal('tooManyLinkRequests', { headers: { 'Retry-After': String(wait) } });
    }
  }

  /** The visitor's long-lived anonymous id, set when it has none (a new visitor, counted per address). */
  async function visitorOf(request: FastifyRequest, reply: FastifyReply): Promise<string> {
    const given = givenVisitor(request);
    if (given) return given;
    await limit('newVisitor', request);
    const fresh = newVisitorId();
    visitors.set(request, fresh);
    reply.header(
      'Set-Cookie',
      cookie(VISITOR_COOKIE, fresh, {
        path: '/',
        maxAgeSeconds: VISITOR_DAYS * 86_400,
        secure: deps.secureCookies,
      }),
    );
    return fresh;
  }

  /** The session cookie, if the service signed it (whatever gate it passed). */
  async function signedSession(request: FastifyRequest): Promise<LinkSession | undefined> {
    return (await deps.signer()).verify<LinkSession>(readCookies(request.headers.cookie).get(SESSION_COOKIE));
  }

  /** The session of this link's gate as it is now: passed, or at a step still to pass. */
  async function gateSession(request: FastifyRequest, link: PublicLink): Promise<LinkSession | undefined> {
    const session = await signedSession(request);
    return session && session.gate === (await deps.signer()).gateOf(link) ? session : undefined;
  }

  /** The session that passed this link's whole gate. */
  async function sessionOf(request: FastifyRequest, link: PublicLink): Promise<LinkSession | undefined> {
    const session = await gateSession(request, link);
    return session && !session.step ? session : undefined;
  }

  async function keepSession(reply: FastifyReply, shortId: string, session: LinkSession): Promise<void> {
    const signed = (await deps.signer()).sign({ ...session, link: shortId });
    reply.header(
      'Set-Cookie',
      cookie(SESSION_COOKIE, signed, {
        path: `/v/${shortId}`,
        maxAgeSeconds: SESSION_DAYS * 86_400,
        secure: deps.secureCookies,
      }),
    );
  }

  const viewerOf = (session: LinkSession, visitorId: string): ViewerInput =>
    session.email ? { email: session.email, name: session.name } : { visitorId, name: session.name };

  /**
   * The session that passed this link's gate, for a page that needs it: a link without a gate
   * is passed by opening it (a visit). A page view keeps the session alive and counts a new
   * visit after 30 minutes without one.
   */
  async function passedSession(
    request: FastifyRequest,
    reply: FastifyReply,
    shortId: string,
    link: PublicLink,
  ): Promise<{ session: LinkSession; visitorId: string } | undefined> {
    const visitorId = await visitorOf(request, reply);
    const now = write.clock.now();
    const seconds = Math.floor(now.getTime() / 1000);
    let session = await sessionOf(request, link);
    if (!session) {
      if (link.requires_email || link.password_hash || link.has_agreement) return undefined;
      session = { gate: (await deps.signer()).gateOf(link), since: seconds, seen: seconds };
      await visit(link, session, visitorId);
    } else if (now.getTime() - session.seen * 1000 >= VISIT_GAP_MS) {
      await visit(link, session, visitorId);
    }
    session = { ...session, seen: seconds };
    await keepSession(reply, shortId, session);
    return { session, visitorId };
  }

  async function visit(link: PublicLink, session: LinkSession, visitorId: string): Promise<void> {
    try {
      await recordVisit(write, link.id, { viewer: viewerOf(session, visitorId), verified: session.verified });
    } catch (err) {
      throw asPage(err);
    }
  }

  const gate = gateRoutes(app, deps, { openLink, visitorOf, limit, gateSession, keepSession, visit });

  app.get('/:shortId', { schema: { params: LinkParams, querystring: GateQuery } }, async (request, reply) => {
    const { shortId } = request.params;
    await limit('page', request);
    const link = await openLink(shortId, 'all');
    const passed = await passedSession(request, reply, shortId, link);
    if (!passed) {
      const visitorId = await visitorOf(request, reply);
      const pending = request.query.again ? undefined : await gateSession(request, link);
      const page = pending?.step
        ? await gate.stepPage({ shortId, link, visitorId, session: pending })
        : await gate.firstStep(shortId, link, visitorId);
      return html(reply, 200, page);
    }
    return html(reply, 200, roomPage({ shortId, roomName: link.room_name, documents: link.documents }));
  });

  /** The document behind a file or viewer address: only for the session that passed this link's gate. */
  async function documentFor(
    request: FastifyRequest,
    { shortId, documentId }: Static<typeof DocumentParams>,
    reply: FastifyReply,
  ): Promise<OpenDocument> {
    const link = await openLink(shortId, isUuid(documentId) ? { id: documentId.toLowerCase() } : 'none');
    const passed = await passedSession(request, reply, shortId, link);
    const [document] = link.documents;
    if (!passed || !document) throw NO_DOCUMENT();
    return { shortId, link, document, ...passed };
  }

  app.get('/:shortId/d/:documentId', { schema: { params: DocumentParams } }, async (request, reply) => {
    await limit('page', request);
    const { shortId, link, document, session, visitorId } = await documentFor(request, request.params, reply);
    await limit('view', request);
    let view: { id: string };
    try {
      view = await deps.startView(write, link.id, {
        documentId: document.id,
        viewer: viewerOf(session, visitorId),
        reporting: true,
      });
    } catch (err) {
      throw asPage(err);
    }
    const signer = await deps.signer();
    return html(
      reply,
      200,
      viewerPage({
        shortId,
        roomName: link.room_name,
        document,
        pages: document.file_type ? await shownPages(write.db, document.id) : undefined,
        report: { url: `/v/${shortId}/views/${view.id}/report`, token: signer.viewToken(view.id) },
      }),
    );
  });

  documentRoutes(app, deps, { openLink, sessionOf, documentFor, limit, viewerOf });

  // Reports come every few seconds from every open document: the session's signature and
  // the view's token are checked here, and the link, open and the view's own, in the report's
  // batch (tracking/reading.ts), with no query of its own. A report of a view opened before
  // the link's gate changed still counts: the next page asks again.
  app.post(
    '/:shortId/views/:viewId/report',
    { schema: { params: ReportParams, body: Type.String({ maxLength: 64 * 1024 }) } },
    async (request, reply) => {
      const { shortId, viewId } = request.params;
      await limit('report', request);
      const signer = await deps.signer();
      const session = await signedSession(request);
      const body = readingReportOf(request.body);
      // The session of this very link (its cookie, not another link's), and the view's token.
      if (
        !session ||
        session.link !== shortId ||
        !body ||
        !isUuid(viewId) ||
        !signer.checkViewToken(viewId, body.token)
      ) {
        throw fail('viewNotFound');
      }
      try {
        await deps.reportReading(write, viewId, body.report, { shortId });
      } catch (err) {
        if (err instanceof LinkClosedError) throw NOT_ACTIVE();
        if (err instanceof ApiError && err.code === 'conflict') return reply.code(409).send();
        if (err instanceof ApiError && err.code === 'validation_error') return reply.code(400).send();
        throw err;
      }
      return reply.code(204).send();
    },
  );
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

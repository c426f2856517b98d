import { createHash } from 'node:crypto';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { listsAdmit } from '../core/email-entries.ts';
import { isEmail } from '../core/fields.ts';
import { FormBody } from '../core/schemas.ts';
import { withoutHiddenControls } from '../core/text.ts';
import type { TypedFastify } from '../routing/types.ts';
import type { LinkPageDeps } from './deps.ts';
import { linkRefusal } from './errors.ts';
import { CODES, checkCode, checkLinkPassword, newCode, recordGateStep } from './gate.ts';
import { gateRules, type PublicLink } from './repo.ts';
import {
  cookie,
  type LinkSession,
  readCookies,
  SESSION_COOKIE,
  VERIFIED_COOKIE,
  VERIFIED_DAYS,
  type VerifiedEmails,
} from './session.ts';
import { agreementPage, codePage, type GateForm, gatePage, messagePage } from './views.ts';

const LinkParams = Type.Object({ shortId: Type.String() });

/** What the gate's routes use of the link page's own (routes.ts). */
export interface GateAccess {
  openLink(shortId: string): Promise<PublicLink>;
  visitorOf(request: FastifyRequest, reply: FastifyReply): Promise<string>;
  limit(action: 'page', request: FastifyRequest): Promise<void>;
  /** The signed session of this link's gate as it is now, passed or with a step to go. */
  gateSession(request: FastifyRequest, link: PublicLink): Promise<LinkSession | undefined>;
  keepSession(reply: FastifyReply, shortId: string, session: LinkSession): Promise<void>;
  /** Records the visit of a session that passed the whole gate. */
  visit(link: PublicLink, session: LinkSession, visitorId: string): Promise<void>;
}

type Problem = { message: string; field: 'email' | 'password' | 'form' };

/** A visitor at a step of the gate: the link's address and row, who they are, their session. */
interface AtGate {
  shortId: string;
  link: PublicLink;
  visitorId: string;
  session: LinkSession;
}

/**
 * The gate of a link, in its order (contract.md section 7): email, name and password; then a
 * code mailed to the email (verifyEmail); then the link's allow and block lists; then its
 * agreement. Each step's form posts here and answers with the next step's page (303 to the
 * link's address, which shows the step a session is at) or the same page with what is wrong.
 * The visit is recorded once the whole gate is passed.
 */
export function gateRoutes(app: TypedFastify, deps: LinkPageDeps, access: GateAccess) {
  const { write } = deps;
  const now = () => write.clock.now();

  async function token(shortId: string, visitorId: string): Promise<string> {
    return (await deps.signer()).formToken(shortId, visitorId, now());
  }

  async function tokenIsGood(shortId: string, visitorId: string, given: unknown): Promise<boolean> {
    return (await deps.signer()).checkFormToken(shortId, visitorId, given, now());
  }

  async function firstStep(
    shortId: string,
    link: PublicLink,
    visitorId: string,
    form?: GateForm,
    problem?: Problem,
  ) {
    return gatePage({
      shortId,
      roomName: link.room_name,
      askEmail: link.requires_email,
      askPassword: link.password_hash !== null,
      token: await token(shortId, visitorId),
      form,
      problem,
    });
  }

  /** The code step's page for a session, with what was wrong with the last try. */
  async function codeStep({ shortId, link, visitorId, session }: AtGate, problem?: string) {
    return codePage({
      shortId,
      roomName: link.room_name,
      email: session.email ?? '',
      token: await token(shortId, visitorId),
      problem,
    });
  }

  /** The page of the step a session is at (routes.ts shows it at the link's address). */
  async function stepPage(at: AtGate) {
    const { shortId, link, visitorId, session } = at;
    if (session.step === 'verify') return codeStep(at);
    const rules = await gateRules(write.db, link.id);
    return agreementPage({
      shortId,
      roomName: link.room_name,
      text: rules?.agreement ?? '',
      token: await token(shortId, visitorId),
    });
  }

  /** The emails this browser proved, still good. */
  async function provedEmails(request: FastifyRequest): Promise<Record<string, number>> {
    const signer = await deps.signer();
    const kept = signer.verify<VerifiedEmails>(readCookies(request.headers.cookie).get(VERIFIED_COOKIE));
    const seconds = Math.floor(now().getTime() / 1000);
    return Object.fromEntries(
      Object.entries(kept?.emails ?? {}).filter(([, until]) => typeof until === 'number' && until > seconds),
    );
  }

  async function rememberProved(request: FastifyRequest, reply: FastifyReply, email: string): Promise<void> {
    const emails = await provedEmails(request);
    emails[email.toLowerCase()] = Math.floor(now().getTime() / 1000) + VERIFIED_DAYS * 86_400;
    // The latest five are enough for a browser shared by a few people.
    const latest = Object.entries(emails)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 5);
    const signed = (await deps.signer()).sign({
      emails: Object.fromEntries(latest),
    } satisfies VerifiedEmails);
    reply.header(
      'Set-Cookie',
      cookie(VERIFIED_COOKIE, signed, {
        path: '/v',
        maxAgeSeconds: VERIFIED_DAYS * 86_400,
        secure: deps.secureCookies,
      }),
    );
  }

  const toLink = (reply: FastifyReply, shortId: string) =>
    reply.code(303).header('Location', `/v/${shortId}`).send();

  const cannotVerify = (reply: FastifyReply, request: FastifyRequest, link: PublicLink) => {
    request.log.warn({ linkId: link.id }, 'link asks for verified emails but SMTP_URL is not set');
    return html(
      reply,
      503,
      messagePage(
        'This link cannot be opened right now',
        'It asks to verify your email, and no email can be sent at the moment. Ask the person who shared it.',
      ),
    );
  };

  /** Mails a new code and moves the session to the verify step; or the page that says why not. */
  async function sendCode(request: FastifyRequest, reply: FastifyReply, at: AtGate): Promise<FastifyReply> {
    const { shortId, link, session } = at;
    const mailer = deps.mailer;
    const email = session.email ?? '';
    if (!mailer) return cannotVerify(reply, request, link);
    const sent = await newCode(write, link.id, email);
    if (!sent.ok) {
      const wait = sent.retryAfterSeconds;
      const problem = `A code was sent to this email a moment ago. A new one can be sent in ${waitText(wait)}.`;
      reply.header('Retry-After', String(wait));
      if (session.step === 'verify') return html(reply, 429, await codeStep(at, problem));
      throw linkRefusal('tooManyLinkRequests', { detail: problem, headers: { 'Retry-After': String(wait) } });
    }
    try {
      await mailer.sendCode({
        to: email,
        code: sent.code,
        roomName: link.room_name,
        minutes: CODES.ttlMs / 60_000,
      });
    } catch (err) {
      request.log.error({ err, linkId: link.id }, 'the verification code could not be mailed');
      return html(
        reply,
        503,
        messagePage(
          'The code could not be sent',
          'Sending email failed for a moment. Try again in a minute.',
          {
            href: `/v/${shortId}`,
            label: 'Try again',
          },
        ),
      );
    }
    await access.keepSession(reply, shortId, { ...session, step: 'verify', code: sent.id });
    return toLink(reply, shortId);
  }

  /**
   * The steps after the email's proof: the lists (a refusal is recorded and ends the session),
   * then the agreement, then the visit.
   */
  async function afterProof(request: FastifyRequest, reply: FastifyReply, at: AtGate): Promise<FastifyReply> {
    const { shortId, link, session } = at;
    const rules = await gateRules(write.db, link.id);
    if (!rules) return toLink(reply, shortId);
    if (session.email && !listsAdmit({ allow: rules.allow_list, block: rules.block_list }, session.email)) {
      await recordGateStep(write, {
        roomId: link.deal_room_id,
        linkId: link.id,
        kind: 'refused',
        email: session.email,
        name: session.name ?? null,
        address: request.ip,
        verified: session.verified === true,
        agreementSha256: null,
      });
      reply.header(
        'Set-Cookie',
        cookie(SESSION_COOKIE, '', { path: `/v/${shortId}`, maxAgeSeconds: 0, secure: deps.secureCookies }),
      );
      return html(
        reply,
        403,
        messagePage(
          'This email cannot open this link',
          'Ask the person who shared this link with you for access, or use another email.',
          { href: `/v/${shortId}?again=1`, label: 'Use another email' },
        ),
      );
    }
    if (rules.agreement !== null) {
      await access.keepSession(reply, shortId, { ...session, step: 'agree', code: undefined });
      return toLink(reply, shortId);
    }
    return passed(reply, at);
  }

  /** Through the gate: the visit begins and the session holds no step. */
  async function passed(
    reply: FastifyReply,
    { shortId, link, visitorId, session }: AtGate,
  ): Promise<FastifyReply> {
    const done: LinkSession = { ...session, step: undefined, code: undefined };
    await access.visit(link, done, visitorId);
    await access.keepSession(reply, shortId, done);
    return toLink(reply, shortId);
  }

  app.post('/:shortId', { schema: { params: LinkParams, body: FormBody } }, async (request, reply) => {
    const { shortId } = request.params;
    await access.limit('page', request);
    const link = await access.openLink(shortId);
    const visitorId = await access.visitorOf(request, reply);
    const body: Partial<Record<string, string>> = request.body;
    const form = {
      email: body.email?.trim().slice(0, 320),
      name: body.name === undefined ? undefined : withoutHiddenControls(body.name).trim().slice(0, 200),
    };
    const again = (status: number, problem: Problem) =>
      firstStep(shortId, link, visitorId, form, problem).then((page) => html(reply, status, page));
    if (!(await tokenIsGood(shortId, visitorId, body.token))) {
      return again(400, { message: 'This form has expired. Please try again.', field: 'form' });
    }
    if (link.requires_email && !(form.email && isEmail(form.email))) {
      return again(400, { message: 'Enter a valid email', field: 'email' });
    }
    if (link.password_hash) {
      const password = body.password ?? '';
      if (password === '') return again(400, { message: 'Enter the password', field: 'password' });
      const checked = await checkLinkPassword(
        write,
        { id: link.id, passwordHash: link.password_hash },
        request.ip,
        password,
      );
      if (!checked.ok && checked.reason === 'throttled') {
        const wait = checked.retryAfterSeconds;
        throw linkRefusal('tooManyPasswords', {
          detail: `Too many incorrect passwords. Try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.`,
          headers: { 'Retry-After': String(wait) },
        });
      }
      if (!checked.ok) return again(401, { message: 'Incorrect password', field: 'password' });
    }
    const seconds = Math.floor(now().getTime() / 1000);
    const session: LinkSession = {
      gate: (await deps.signer()).gateOf(link),
      ...(link.requires_email ? { email: form.email, name: form.name || undefined } : {}),
      since: seconds,
      seen: seconds,
    };
    if (link.verify_email && session.email) {
      const proved = await provedEmails(request);
      if (proved[session.email.toLowerCase()] === undefined) {
        return sendCode(request, reply, { shortId, link, visitorId, session });
      }
      session.verified = true;
    }
    return afterProof(request, reply, { shortId, link, visitorId, session });
  });

  /** The session at a step, or the link's address again (the step was passed, or the gate changed). */
  async function atStep(
    request: FastifyRequest,
    reply: FastifyReply,
    step: 'verify' | 'agree',
    { shortId }: Static<typeof LinkParams>,
    body: Partial<Record<string, string>>,
  ) {
    await access.limit('page', request);
    const link = await access.openLink(shortId);
    const visitorId = await access.visitorOf(request, reply);
    const session = await access.gateSession(request, link);
    if (session?.step !== step || !(await tokenIsGood(shortId, visitorId, body.token))) {
      return { stale: toLink(reply, shortId) } as const;
    }
    return { shortId, link, visitorId, session, body } as const;
  }

  app.post('/:shortId/verify', { schema: { params: LinkParams, body: FormBody } }, async (request, reply) => {
    const at = await atStep(request, reply, 'verify', request.params, request.body);
    if ('stale' in at) return at.stale;
    const { link, session, body } = at;
    const typed = (body.code ?? '').replace(/\s/g, '');
    const page = async (status: number, problem: string) => html(reply, status, await codeStep(at, problem));
    if (!/^\d{6}$/.test(typed)) return page(400, 'Enter the six-digit code from the email');
    const checked = await checkCode(write, session.code ?? '', link.id, typed);
    if (checked === 'wrong') return page(401, 'Incorrect code');
    if (checked === 'expired') return page(401, 'This code has expired. Send a new code.');
    if (checked === 'spent') return page(401, 'Too many incorrect codes. Send a new code.');
    await rememberProved(request, reply, session.email ?? '');
    return afterProof(request, reply, { ...at, session: { ...session, verified: true, code: undefined } });
  });

  app.post('/:shortId/resend', { schema: { params: LinkParams, body: FormBody } }, async (request, reply) => {
    const at = await atStep(request, reply, 'verify', request.params, request.body);
    if ('stale' in at) return at.stale;
    return sendCode(request, reply, at);
  });

  app.post('/:shortId/agree', { schema: { params: LinkParams, body: FormBody } }, async (request, reply) => {
    const at = await atStep(request, reply, 'agree', request.params, request.body);
    if ('stale' in at) return at.stale;
    const { shortId, link, session } = at;
    const rules = await gateRules(write.db, link.id);
    if (rules?.agreement == null) return toLink(reply, shortId);
    await recordGateStep(write, {
      roomId: link.deal_room_id,
      linkId: link.id,
      kind: 'agreed',
      email: session.email ?? null,
      name: session.name ?? null,
      address: request.ip,
      verified: session.verified === true,
      agreementSha256: createHash('sha256').update(rules.agreement).digest('hex'),
    });
    return passed(reply, at);
  });

  return { stepPage, firstStep };
}

/** The gate's pages routes.ts shows at the link's address. */
export type GatePages = ReturnType<typeof gateRoutes>;

function waitText(seconds: number): string {
  return seconds < 90 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
}

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../core/html.ts';
import { FormBody } from '../core/schemas.ts';
import { cookie, readCookies } from '../link-page/session.ts';
import { acceptInvitation, checkNewPassword, endSession, openInvitation, signIn } from '../users/commands.ts';
import { VISITOR } from '../write/context.ts';
import { actorOf, currentUser, endedSessionCookie, sameToken, sessionCookie } from './auth.ts';
import { htmlPage, type Route, redirect } from './context.ts';
import { refusal } from './errors.ts';
import { formOf } from './forms.ts';
import { problem, publicPage } from './layout.ts';

/** The pre-sign-in cookie a sign-in or invitation form's token is bound to (login CSRF). */
const FORM_COOKIE = 'dr_form';
/** Its name as set: `__Host-` over https, as the session's (auth.ts). */
const formCookieName = (secure: boolean) => (secure ? `__Host-${FORM_COOKIE}` : FORM_COOKIE);
const NextQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) });
const TokenParams = Type.Object({ token: Type.String() });

/** Where a sign-in may send the person on: a dashboard address of this site, nothing else. */
function nextOf(value: unknown): string {
  return typeof value === 'string' && /^\/app(\/[\w\-./?=&%]*)?$/.test(value) && !value.includes('//')
    ? value
    : '/app/rooms';
}

export const signInRoutes: Route = (app, deps) => {
  const formToken = async (request: FastifyRequest, reply: FastifyReply, purpose: string) => {
    let nonce = readCookies(request.headers.cookie).get(formCookieName(deps.secureCookies));
    if (!nonce || !/^[A-Za-z0-9_-]{22}$/.test(nonce)) {
      nonce = randomBytes(16).toString('base64url');
      reply.header(
        'Set-Cookie',
        cookie(formCookieName(deps.secureCookies), nonce, {
          path: '/',
          maxAgeSeconds: 3600,
          secure: deps.secureCookies,
        }),
      );
    }
    return (await deps.signer()).formToken(purpose, nonce, deps.clock.now());
  };
  const checkFormToken = async (request: FastifyRequest, purpose: string, sent: string) => {
    const nonce = readCookies(request.headers.cookie).get(formCookieName(deps.secureCookies));
    return (
      nonce !== undefined && (await deps.signer()).checkFormToken(purpose, nonce, sent, deps.clock.now())
    );
  };

  app.get('/', async (_request, reply) => redirect(reply, '/app/rooms'));
  app.get('/app', async (_request, reply) => redirect(reply, '/app/rooms'));

  app.get('/login', { schema: { querystring: NextQuery } }, async (request, reply) => {
    if (await currentUser(deps.db, deps.clock, request, deps.secureCookies, deps.sessionIdleMs))
      return redirect(reply, '/app/rooms');
    const next = nextOf(request.query.next);
    return htmlPage(reply, signInPage(await formToken(request, reply, 'login'), next));
  });

  app.post('/login', { schema: { body: FormBody } }, async (request, reply) => {
    const form = formOf(request.body);
    const next = nextOf(form.get('next'));
    const token = await formToken(request, reply, 'login');
    if (!(await checkFormToken(request, 'login', form.get('_form')))) {
      return htmlPage(reply, signInPage(token, next, 'This form has expired. Please try again.'), 403);
    }
    const result = await signIn(deps.writeContext(VISITOR), form.get('email'), form.get('password'), {
      userAgent: String(request.headers['user-agent'] ?? ''),
      address: request.ip,
    });
    if (!result.ok && result.reason === 'throttled') {
      const minutes = Math.ceil(result.retryAfterSeconds / 60);
      throw refusal('tooManySignIns', {
        detail: `Too many failed sign-ins. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
        headers: { 'Retry-After': String(result.retryAfterSeconds) },
      });
    }
    if (!result.ok) {
      return htmlPage(reply, signInPage(token, next, 'Incorrect email or password', form.get('email')), 401);
    }
    reply.header('Set-Cookie', sessionCookie(result.session.token, deps.secureCookies));
    return redirect(reply, next);
  });

  app.post('/logout', { schema: { body: FormBody } }, async (request, reply) => {
    const user = await currentUser(deps.db, deps.clock, request, deps.secureCookies, deps.sessionIdleMs);
    if (user) {
      if (!sameToken(formOf(request.body).get('_csrf'), user.csrf)) {
        throw refusal('formExpired');
      }
      await endSession(
        deps.writeContext({ actor: actorOf(user), teamId: user.teamId }),
        user.id,
        user.sessionId,
      );
    }
    reply.header('Set-Cookie', endedSessionCookie(deps.secureCookies));
    return redirect(reply, '/login');
  });

  const invitationGone = () => refusal('invitationGone');

  app.get('/invite/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    const { token } = request.params;
    const invitation = await openInvitation(deps.db, token, deps.clock.now());
    if (!invitation) throw invitationGone();
    return htmlPage(reply, invitePage(token, invitation.email, await formToken(request, reply, 'invite')));
  });

  app.post('/invite/:token', { schema: { params: TokenParams, body: FormBody } }, async (request, reply) => {
    const { token } = request.params;
    const invitation = await openInvitation(deps.db, token, deps.clock.now());
    if (!invitation) throw invitationGone();
    const form = formOf(request.body);
    const formTokenNow = await formToken(request, reply, 'invite');
    if (!(await checkFormToken(request, 'invite', form.get('_form')))) {
      return htmlPage(
        reply,
        invitePage(token, invitation.email, formTokenNow, 'This form has expired. Please try again.'),
        403,
      );
    }
    const password = form.text('password');
    const wrong = checkNewPassword(password, form.text('confirm'));
    if (wrong) return htmlPage(reply, invitePage(token, invitation.email, formTokenNow, wrong), 400);
    const session = await acceptInvitation(deps.writeContext(VISITOR), token, password, {
      userAgent: String(request.headers['user-agent'] ?? ''),
      address: request.ip,
    }).catch(() => {
      throw invitationGone();
    });
    reply.header('Set-Cookie', sessionCookie(session.token, deps.secureCookies));
    return redirect(reply, '/app/rooms');
  });
};

function signInPage(token: string, next: string, message?: string, email = ''): string {
  return publicPage(
    'Sign in',
    html`<section class="card">
  <h1>Sign in</h1>
  ${problem(message)}
  <form method="post" action="/login">
    <input type="hidden" name="_form" value="${token}">
    <input type="hidden" name="next" value="${next}">
    <div class="field"><label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${email}"></div>
    <div class="field"><label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required></div>
    <button type="submit" class="primary">Sign in</button>
  </form>
  <p class="hint">New here? Ask your team's owner for an invitation.</p>
</section>`,
  );
}

function invitePage(secret: string, email: string, token: string, message?: string): string {
  return publicPage(
    'Set your password',
    html`<section class="card">
  <h1>Set your password</h1>
  <p>You were invited as <strong>${email}</strong>. Choose a password to sign in with.</p>
  ${problem(message)}
  <form method="post" action="/invite/${secret}">
    <input type="hidden" name="_form" value="${token}">
    <div class="field"><label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" aria-describedby="password-hint">
      <p class="hint" id="password-hint">At least 10 characters.</p></div>
    <div class="field"><label for="confirm">Confirm password</label>
      <input id="confirm" name="confirm" type="password" autocomplete="new-password" required></div>
    <button type="submit" class="primary">Set password</button>
  </form>
</section>`,
  );
}

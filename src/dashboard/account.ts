import type { Html } from '../core/html.ts';
import { IdParams } from '../core/schemas.ts';
import { timezoneOf } from '../core/zones.ts';
import { visitEmailsOf } from '../notifications/repo.ts';
import { changePassword, checkNewPassword, endSession, setOwnTimezone } from '../users/commands.ts';
import { userSessions, userTimezones } from '../users/repo.ts';
import { actorOf, type DashboardUser } from './auth.ts';
import { doneOf, htmlPage, idParam, type Route, redirect, userWrite } from './context.ts';
import { FormBody, formOf } from './forms.ts';
import { notice, problem } from './layout.ts';
import { accountView } from './views/account.ts';

const OWN = { config: { may: 'own-account' as const } };

/** The signed-in person's own account: sessions and password. */
export const accountRoutes: Route = (app, deps) => {
  const page = async (user: DashboardUser, top: Html | '' = '') =>
    accountView(
      user,
      await userSessions(deps.db, user.id, deps.clock.now()),
      await userTimezones(deps.db, user.id),
      (await visitEmailsOf(deps.db, user.id)) ?? { visit_emails: 'instant', digest_hour: 8 },
      top,
    );

  app.get('/account', async (request, reply) =>
    htmlPage(reply, await page(request.user, notice(doneOf(request)))),
  );

  app.post(
    '/account/sessions/:id/end',
    { ...OWN, schema: { params: IdParams, body: FormBody } },
    async (request, reply) => {
      const { user } = request;
      const ctx = deps.writeContext({ actor: actorOf(user), teamId: user.teamId });
      await endSession(ctx, user.id, idParam(request));
      return redirect(reply, '/app/account?done=session-ended');
    },
  );

  app.post('/account/timezone', { ...OWN, schema: { body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const typed = formOf(request.body).get('timezone');
    const zone = typed === '' ? null : (timezoneOf(typed) ?? undefined);
    if (zone === undefined) {
      return htmlPage(reply, await page(user, problem('Choose a timezone from the list')), 400);
    }
    await setOwnTimezone(
      userWrite(deps, user, () => ({
        action: 'user.timezone_changed',
        subject: { type: 'user', id: user.id },
        after: { timezone: zone ?? "the team's" },
      })),
      user.id,
      zone,
    );
    return redirect(reply, '/app/account?done=timezone-saved');
  });

  app.post('/account/password', { ...OWN, schema: { body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const form = formOf(request.body);
    const next = form.text('password');
    const wrong = checkNewPassword(next, form.text('confirm'));
    if (wrong) return htmlPage(reply, await page(user, problem(wrong)), 400);
    const changed = await changePassword(
      userWrite(deps, user, () => ({
        action: 'user.password_changed',
        subject: { type: 'user', id: user.id },
      })),
      { id: user.id, sessionId: user.sessionId },
      form.text('current'),
      next,
    );
    if (!changed) return htmlPage(reply, await page(user, problem('The current password is not right')), 400);
    return redirect(reply, '/app/account?done=password-changed');
  });
};

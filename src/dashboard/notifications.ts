import { Type } from '@sinclair/typebox';
import { IdParams } from '../core/schemas.ts';
import { followRoom, setVisitEmails, unsubscribe } from '../notifications/commands.ts';
import { userNotifications } from '../notifications/repo.ts';
import type { TypedFastify } from '../routing/types.ts';
import { SYSTEM } from '../write/context.ts';
import { actorOf } from './auth.ts';
import { type DashboardDeps, htmlPage, idParam, type Route, redirect, userWrite } from './context.ts';
import { FormBody, formOf } from './forms.ts';
import { roomOf } from './rooms.ts';
import { notificationsView, unsubscribePage } from './views/notifications.ts';

const OWN = { config: { may: 'own-account' as const } };
const TokenParams = Type.Object({ token: Type.String({ maxLength: 100 }) });

/** The person's notifications: what was sent (or would have been), their choice, the rooms they follow. */
export const notificationRoutes: Route = (app, deps) => {
  app.get('/notifications', async (request, reply) =>
    htmlPage(
      reply,
      notificationsView(request.user, await userNotifications(deps.db, request.user.id, 200), deps),
    ),
  );

  app.post('/account/notifications', { ...OWN, schema: { body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const form = formOf(request.body);
    const choice = form.get('visitEmails');
    const hour = Number(form.get('digestHour') || '8');
    try {
      await setVisitEmails(
        userWrite(deps, user, () => ({
          action: 'user.notifications_changed',
          subject: { type: 'user', id: user.id },
          after: { visitEmails: choice, digestHour: hour },
        })),
        user.id,
        choice,
        hour,
      );
    } catch {
      return redirect(reply, '/app/account?done=notifications-refused');
    }
    return redirect(reply, '/app/account?done=notifications-saved');
  });

  for (const [path, following] of [
    ['follow', true],
    ['unfollow', false],
  ] as const) {
    app.post(
      `/rooms/:id/${path}`,
      { ...OWN, schema: { params: IdParams, body: FormBody } },
      async (request, reply) => {
        const { user } = request;
        const room = await roomOf(deps, user, idParam(request));
        await followRoom(
          deps.writeContext({ actor: actorOf(user), teamId: user.teamId }),
          user.id,
          room.id,
          following,
        );
        return redirect(reply, `/app/rooms/${room.id}?done=${following ? 'followed' : 'unfollowed'}`);
      },
    );
  }
};

/**
 * An email's unsubscribe link, at the root (the person may not be signed in): a page with one
 * button, and the one-click POST mail clients send (RFC 8058): the token is the permission.
 */
export function unsubscribeRoutes(app: TypedFastify, deps: DashboardDeps): void {
  app.get('/unsubscribe/:token', { schema: { params: TokenParams } }, async (request, reply) =>
    htmlPage(reply, unsubscribePage(request.params.token, undefined)),
  );
  app.post('/unsubscribe/:token', { schema: { params: TokenParams } }, async (request, reply) => {
    const done = await unsubscribe(deps.writeContext(SYSTEM), request.params.token);
    if (!done) return htmlPage(reply, unsubscribePage(request.params.token, 'unknown'), 404);
    return htmlPage(reply, unsubscribePage(request.params.token, done));
  });
}

import { Type } from '@sinclair/typebox';
import { Email } from '../core/fields.ts';
import type { Html } from '../core/html.ts';
import { IdParams } from '../core/schemas.ts';
import { changeRole, type Invitation, inviteUser, type RoleChange, removeUser } from '../users/commands.ts';
import { openInvitations, teamUsers } from '../users/repo.ts';
import { ROLES } from '../users/roles.ts';
import type { DashboardUser } from './auth.ts';
import { asPage, doneOf, htmlPage, idParam, type Route, redirect, userWrite, withUser } from './context.ts';
import { refusal } from './errors.ts';
import { FormBody, type FormState, readForm, refusedField } from './forms.ts';
import { notice } from './layout.ts';
import { shownOnce } from './views/settings.ts';
import { INVITE_FIELDS, usersView } from './views/users.ts';

/** An invitation as the form sends it: the rules inviteUser applies. */
const Role = Type.Union(ROLES.map((role) => Type.Literal(role)));
const InvitationForm = Type.Object({ email: Email(), role: Role });
const RoleForm = Type.Object({ role: Role });
const OWNERS = { config: { may: 'manage-users' as const } };

/** Users and invitations: owners only. */
export const userRoutes: Route = (app, deps) => {
  const page = async (user: DashboardUser, o: { top?: Html | ''; form?: FormState } = {}) => {
    const [users, invitations] = await Promise.all([
      teamUsers(deps.db, user.teamId),
      openInvitations(deps.db, user.teamId, deps.clock.now()),
    ]);
    return usersView(user, { users, invitations }, o);
  };

  app.get(
    '/settings/users',
    OWNERS,
    withUser(async (request, reply, user) =>
      htmlPage(reply, await page(user, { top: notice(doneOf(request)) })),
    ),
  );

  app.post(
    '/settings/users',
    { ...OWNERS, schema: { body: FormBody } },
    withUser(async (request, reply, user) => {
      const form = readForm(InvitationForm, request.body, INVITE_FIELDS);
      if (!form.ok) return htmlPage(reply, await page(user, { form: form.state }), 400);
      const ctx = userWrite<Invitation>(deps, user, (done) => ({
        action: 'user.invited',
        subject: { type: 'user', id: done.userId },
        after: { email: done.email, role: done.role, expiresAt: done.expiresAt },
      }));
      const invitation = await inviteUser(ctx, { teamId: user.teamId, ...form.value }).catch((err) =>
        refusedField(asPage(err), request.body, INVITE_FIELDS),
      );
      if ('errors' in invitation) return htmlPage(reply, await page(user, { form: invitation }), 400);
      const address = `${deps.appUrl}${invitation.path}`;
      let mailed = '';
      if (deps.mailer) {
        try {
          await deps.mailer.send({
            to: invitation.email,
            address,
            teamName: user.teamName,
            invitedBy: user.email,
          });
          mailed = ` It was also mailed to ${invitation.email}.`;
        } catch (err) {
          request.log.warn({ err: (err as Error).message }, 'an invitation could not be mailed');
          mailed = ' It could not be mailed: send it yourself.';
        }
      }
      const top = shownOnce(
        `Invitation for ${invitation.email}`,
        address,
        `Send this address to the person: it works once, for 7 days.${mailed}`,
      );
      return htmlPage(reply, await page(user, { top }), 201);
    }),
  );

  app.post(
    '/users/:id/role',
    { ...OWNERS, schema: { params: IdParams, body: FormBody } },
    withUser(async (request, reply, user) => {
      const form = readForm(RoleForm, request.body, { role: 'Role' });
      if (!form.ok) throw refusal('chooseRole');
      const ctx = userWrite<RoleChange>(deps, user, (done) => ({
        action: 'user.role_changed',
        subject: { type: 'user', id: done.id },
        before: { email: done.email, role: done.before },
        after: { email: done.email, role: done.after },
      }));
      await changeRole(ctx, idParam(request), form.value.role).catch((err) => {
        throw asPage(err);
      });
      return redirect(reply, '/app/settings/users?done=user-saved');
    }),
  );

  app.post(
    '/users/:id/remove',
    { ...OWNERS, schema: { params: IdParams, body: FormBody } },
    withUser(async (request, reply, user) => {
      const id = idParam(request);
      if (id === user.id) throw refusal('removeYourself');
      const ctx = userWrite<{ id: string; email: string; role: string }>(deps, user, (done) => ({
        action: 'user.removed',
        subject: { type: 'user', id: done.id },
        before: { email: done.email, role: done.role },
      }));
      await removeUser(ctx, id).catch((err) => {
        throw asPage(err);
      });
      return redirect(reply, '/app/settings/users?done=user-removed');
    }),
  );
};

import { auditPage } from '../audit/repo.ts';
import { type Html, html } from '../core/html.ts';
import { newId } from '../core/ids.ts';
import { EVENT_TYPES, type EventType } from '../events/catalogue.ts';
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS_PER_TEAM, revokeApiKey } from '../keys/commands.ts';
import {
  changePassword,
  changeRole,
  checkNewPassword,
  type Invitation,
  inviteUser,
  type RoleChange,
  removeUser,
} from '../users/commands.ts';
import { deleteSession, openInvitations, teamUsers, userSessions } from '../users/repo.ts';
import { isRole, ROLES } from '../users/roles.ts';
import {
  createEndpoint,
  deleteEndpoint,
  MAX_ENDPOINTS_PER_TEAM,
  replayDeadLetter,
  replayEndpointDeadLetters,
  rotateEndpointSecret,
  updateEndpoint,
} from '../webhooks/commands.ts';
import {
  currentSecret,
  getEndpoint,
  listAttempts,
  listDeadLetters,
  listEndpoints,
} from '../webhooks/repo.ts';
import type { DashboardUser } from './auth.ts';
import {
  asPage,
  asUser,
  doneOf,
  formOf,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
  userWrite,
  withUser,
} from './context.ts';
import { sendCsv } from './csv.ts';
import { DashboardError, notFound } from './errors.ts';
import {
  actionButton,
  count,
  csrfField,
  dashboardPage,
  mayChange,
  mayManageUsers,
  notice,
  problem,
  table,
  when,
} from './layout.ts';
import { teamDeadLetter, teamEndpoint, teamKey } from './repo.ts';

const AUDIT_PAGE = 100;

function settingsTabs(user: DashboardUser, current: 'keys' | 'webhooks' | 'users' | 'audit'): Html {
  const tab = (key: typeof current, href: string, label: string) =>
    html`<a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Team settings">
  ${tab('keys', '/app/settings/keys', 'API keys')}
  ${tab('webhooks', '/app/settings/webhooks', 'Webhooks')}
  ${mayManageUsers(user) ? tab('users', '/app/settings/users', 'Users') : ''}
  ${tab('audit', '/app/settings/audit', 'Audit log')}
</nav>`;
}

function shownOnce(label: string, value: string, detail: string): Html {
  return html`<section class="card once" role="status">
  <h2>${label}</h2>
  <p>${detail}</p>
  <p><code class="secret" id="shown-once">${value}</code> <button type="button" class="copy secondary" data-copy="${value}">Copy</button></p>
</section>`;
}

export const settingsRoutes: Route = (app, deps) => {
  const page = (
    user: DashboardUser,
    title: string,
    body: Html,
    section: 'settings' | 'account' = 'settings',
  ) =>
    dashboardPage(user, {
      title,
      section,
      body,
      crumbs: section === 'settings' ? [['/app/settings', 'Team settings']] : [],
    });

  app.get(
    '/settings',
    withUser(async (_request, reply) => redirect(reply, '/app/settings/keys')),
  );

  // API keys: the plain key only on the page that answers "Create key".
  const keysPage = async (user: DashboardUser, top: Html | '' = '') => {
    const keys = await listApiKeys(deps.db, user.teamId);
    const active = keys.filter((k) => !k.revokedAt).length;
    return page(
      user,
      'API keys',
      html`<div class="page-head"><h1>Team settings</h1></div>
${settingsTabs(user, 'keys')}
${top}
<p class="lead">Keys read this team's figures through API v1. ${count(active)} of ${MAX_ACTIVE_KEYS_PER_TEAM} active keys in use.</p>
${
  mayChange(user)
    ? active >= MAX_ACTIVE_KEYS_PER_TEAM
      ? html`<p class="alert" role="alert">A team can hold ${MAX_ACTIVE_KEYS_PER_TEAM} active keys. Revoke one to create another.</p>`
      : html`<form method="post" action="/app/settings/keys" class="card row-form">${csrfField(user)}
  <div class="field grow"><label for="key-name">Name</label><input id="key-name" name="name" required maxlength="200" placeholder="e.g. CRM sync"></div>
  <button type="submit" class="primary">Create key</button></form>`
    : ''
}
${table({
  caption: 'API keys',
  head: ['Name', 'Key', 'Created', 'Last used', 'State', ...(mayChange(user) ? [''] : [])],
  empty: 'No keys yet.',
  rows: keys.map(
    (
      k,
    ) => html`<tr><th scope="row">${k.name}</th><td><code>${k.prefix}…</code></td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
<td>${k.revokedAt ? `Revoked ${when(k.revokedAt)}` : 'Active'}</td>${mayChange(user) ? html`<td>${k.revokedAt ? '' : actionButton(user, `/app/keys/${k.id}/revoke`, 'Revoke', { danger: true })}</td>` : ''}</tr>`,
  ),
})}`,
    );
  };

  app.get(
    '/settings/keys',
    withUser(async (request, reply, user) => {
      return htmlPage(reply, await keysPage(user, notice(doneOf(request))));
    }),
  );

  app.post(
    '/settings/keys',
    withUser(async (request, reply, user) => {
      const name = formOf(request).get('name');
      if (name.length === 0 || name.length > 200)
        throw new DashboardError(
          400,
          'Check what you entered',
          'Give the key a name of 1 to 200 characters.',
        );
      const { key } = await asUser(
        deps,
        user,
        {
          action: 'api_key.created',
          subject: { type: 'api_key' },
          after: (r: { apiKey: unknown }) => r.apiKey,
        },
        (ctx) => createApiKey(ctx, { teamId: user.teamId, name }),
      ).then((result) => result);
      return htmlPage(
        reply,
        await keysPage(
          user,
          shownOnce(
            'Your new key',
            key,
            'Copy it now: it is shown only this once. Send it as Authorization: Bearer <key>.',
          ),
        ),
        201,
      );
    }),
  );

  subjectAction(app, deps, '/keys/:id/revoke', {
    find: async (user, id) => {
      if (!(await teamKey(deps.db, user.teamId, id))) throw notFound();
      return { id };
    },
    type: 'api_key',
    action: 'api_key.revoked',
    run: (ctx, key) => revokeApiKey(ctx, key.id),
    next: () => '/app/settings/keys?done=key-revoked',
  });

  // Webhook endpoints: the secret only on the page that answers "Add endpoint" or a rotation.
  const webhooksPage = async (user: DashboardUser, top: Html | '' = '') => {
    const endpoints = await listEndpoints(deps.db, user.teamId);
    const dead = await listDeadLetters(deps.db, user.teamId, { limit: 1, offset: '0' });
    return page(
      user,
      'Webhooks',
      html`<div class="page-head"><h1>Team settings</h1></div>
${settingsTabs(user, 'webhooks')}
${top}
<p class="lead">Endpoints receive every event of this team, signed (Standard Webhooks). ${count(dead.total)} dead letter${dead.total === 1 ? '' : 's'} waiting.</p>
${
  mayChange(user) && endpoints.length < MAX_ENDPOINTS_PER_TEAM
    ? html`<form method="post" action="/app/settings/webhooks" class="card stack">${csrfField(user)}
  <h2>New endpoint</h2>
  <div class="field"><label for="endpoint-url">URL</label><input id="endpoint-url" name="url" type="url" required maxlength="2000" placeholder="https://"></div>
  <details><summary>Only some events</summary><fieldset><legend>Events (none chosen: every event)</legend><ul class="choices columns-3">
    ${EVENT_TYPES.map((t) => html`<li class="field check"><input id="ev-${t}" name="events" type="checkbox" value="${t}"><label for="ev-${t}">${t}</label></li>`)}
  </ul></fieldset></details>
  <button type="submit" class="primary">Add endpoint</button></form>`
    : ''
}
${table({
  caption: 'Endpoints',
  head: ['URL', 'Events', 'State', 'Created'],
  empty: 'No endpoints yet.',
  rows: endpoints.map(
    (
      e,
    ) => html`<tr><th scope="row"><a href="/app/webhooks/${e.id}">${e.url}</a></th><td>${e.events === null ? 'Every event' : e.events.join(', ')}</td>
<td>${e.enabled ? 'Enabled' : 'Disabled'}</td><td>${when(e.createdAt)}</td></tr>`,
  ),
})}`,
    );
  };

  app.get(
    '/settings/webhooks',
    withUser(async (request, reply, user) =>
      htmlPage(reply, await webhooksPage(user, notice(doneOf(request)))),
    ),
  );

  app.post(
    '/settings/webhooks',
    withUser(async (request, reply, user) => {
      const form = formOf(request);
      const events = form.all('events');
      if (events.some((e) => !EVENT_TYPES.includes(e as EventType)))
        throw new DashboardError(400, 'Check what you entered', 'Choose known event types.');
      const url = form.get('url');
      if (url.length === 0 || url.length > 2000)
        throw new DashboardError(400, 'Check what you entered', 'Give the endpoint’s URL.');
      const { secret } = await asUser(
        deps,
        user,
        {
          action: 'webhook_endpoint.created',
          subject: { type: 'webhook_endpoint' },
          after: (r: { endpoint: unknown }) => r.endpoint,
        },
        (ctx) =>
          createEndpoint(ctx, user.teamId, {
            url,
            events: events.length > 0 ? (events as EventType[]) : null,
          }),
      ).then((r) => r);
      return htmlPage(
        reply,
        await webhooksPage(
          user,
          shownOnce(
            'Signing secret',
            secret,
            'Copy it now: it is shown only this once. Your receiver checks each delivery’s signature with it.',
          ),
        ),
        201,
      );
    }),
  );

  const endpointOf = async (user: DashboardUser, id: string) => {
    if (!(await teamEndpoint(deps.db, user.teamId, id))) throw notFound();
    return getEndpoint(deps.db, id);
  };

  const endpointPage = async (user: DashboardUser, id: string, top: Html | '' = '') => {
    const endpoint = await endpointOf(user, id);
    const attempts = await listAttempts(deps.db, endpoint.id, { limit: 50, offset: '0' });
    const dead = (await listDeadLetters(deps.db, user.teamId, { limit: 200, offset: '0' })).items.filter(
      (d) => d.endpointId === endpoint.id,
    );
    return dashboardPage(user, {
      title: endpoint.url,
      section: 'settings',
      crumbs: [['/app/settings/webhooks', 'Webhooks']],
      body: html`<div class="page-head"><div><p class="eyebrow">Webhook endpoint</p><h1 class="break">${endpoint.url}</h1></div>
<span class="badge ${endpoint.enabled ? 'active' : 'archived'}">${endpoint.enabled ? 'enabled' : 'disabled'}</span></div>
${top}
<p>${endpoint.events === null ? 'Every event' : endpoint.events.join(', ')}</p>
${
  mayChange(user)
    ? html`<div class="actions">${actionButton(user, `/app/webhooks/${endpoint.id}/${endpoint.enabled ? 'disable' : 'enable'}`, endpoint.enabled ? 'Disable' : 'Enable')}
${actionButton(user, `/app/webhooks/${endpoint.id}/test`, 'Send test event')}
${actionButton(user, `/app/webhooks/${endpoint.id}/rotate`, 'Rotate secret')}
${dead.length > 0 ? actionButton(user, `/app/webhooks/${endpoint.id}/replay`, 'Replay all') : ''}
${actionButton(user, `/app/webhooks/${endpoint.id}/delete`, 'Remove endpoint', { danger: true })}</div>`
    : ''
}
${table({
  caption: 'Dead letters',
  head: ['Failed', 'Event', 'Attempts', 'Last status', 'Last error', ...(mayChange(user) ? [''] : [])],
  empty: 'No dead letters.',
  rows: dead.map(
    (d) =>
      html`<tr><td>${when(d.failedAt)}</td><td>${d.type}</td><td class="num">${d.attempts}</td><td>${d.lastStatus ?? '—'}</td><td>${d.lastError ?? ''}</td>${mayChange(user) ? html`<td>${actionButton(user, `/app/dead-letters/${d.id}/replay`, 'Replay')}</td>` : ''}</tr>`,
  ),
})}
${table({
  caption: `Recent attempts (${count(attempts.total)} in all)`,
  head: ['When', 'Event', 'Status', 'Time', 'Error'],
  numeric: [3],
  empty: 'No attempts yet.',
  rows: attempts.items.map(
    (a) =>
      html`<tr><td>${when(a.attemptedAt)}</td><td>${a.type}</td><td>${a.status ?? 'no answer'}</td><td class="num">${a.durationMs} ms</td><td>${a.error ?? ''}</td></tr>`,
  ),
})}`,
    });
  };

  app.get(
    '/webhooks/:id',
    withUser(async (request, reply, user) =>
      htmlPage(reply, await endpointPage(user, idParam(request), notice(doneOf(request)))),
    ),
  );

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    subjectAction(app, deps, `/webhooks/:id/${action}`, {
      find: endpointOf,
      type: 'webhook_endpoint',
      action: 'webhook_endpoint.updated',
      before: (endpoint) => endpoint,
      run: (ctx, endpoint) => updateEndpoint(ctx, endpoint.id, { enabled }),
      next: (endpoint) => `/app/webhooks/${endpoint.id}?done=endpoint-saved`,
    });
  }

  // A test event: signed like a delivery and sent at once, its answer shown on the page. It is
  // not an event of the catalogue (type webhook.test): nothing is recorded or retried.
  app.post(
    '/webhooks/:id/test',
    withUser(async (request, reply, user) => {
      const endpoint = await endpointOf(user, idParam(request));
      const secret = await currentSecret(deps.db, endpoint.id);
      const now = deps.clock.now();
      const id = newId(now.getTime());
      const body = JSON.stringify({
        id,
        type: 'webhook.test',
        createdAt: now.toISOString(),
        teamId: user.teamId,
        data: { endpointId: endpoint.id, sentBy: user.email },
      });
      const result = await deps.sender().send(endpoint.url, secret ? [secret] : [], id, body, now);
      // The sender's own verdict: no error is a 2xx within the delivery timeout.
      const outcome =
        result.error === null
          ? notice(`Test event delivered: ${result.status} in ${result.durationMs} ms.`)
          : problem(
              `Test event not delivered: ${result.status === null ? (result.error ?? 'no answer') : `the endpoint answered ${result.status}`}.`,
            );
      return htmlPage(reply, await endpointPage(user, endpoint.id, outcome));
    }),
  );

  app.post(
    '/webhooks/:id/rotate',
    withUser(async (request, reply, user) => {
      const endpoint = await endpointOf(user, idParam(request));
      const { secret } = await asUser(
        deps,
        user,
        {
          action: 'webhook_endpoint.secret_rotated',
          subject: { type: 'webhook_endpoint', id: endpoint.id },
          after: (r: { endpoint: unknown }) => r.endpoint,
        },
        (ctx) => rotateEndpointSecret(ctx, endpoint.id),
      ).then((r) => r);
      return htmlPage(
        reply,
        await endpointPage(
          user,
          endpoint.id,
          shownOnce(
            'New signing secret',
            secret,
            'Copy it now: it is shown only this once. The previous secret also signs for 24 hours.',
          ),
        ),
      );
    }),
  );

  subjectAction(app, deps, '/webhooks/:id/replay', {
    find: endpointOf,
    type: 'webhook_endpoint',
    action: 'webhook_endpoint.replayed',
    after: (replayed: number) => ({ replayed }),
    run: (ctx, endpoint) => replayEndpointDeadLetters(ctx, endpoint.id),
    next: (endpoint) => `/app/webhooks/${endpoint.id}?done=replayed`,
  });

  subjectAction(app, deps, '/webhooks/:id/delete', {
    find: endpointOf,
    type: 'webhook_endpoint',
    action: 'webhook_endpoint.deleted',
    before: (endpoint) => endpoint,
    after: () => null,
    run: (ctx, endpoint) => deleteEndpoint(ctx, endpoint.id),
    next: () => '/app/settings/webhooks?done=endpoint-removed',
  });

  subjectAction(app, deps, '/dead-letters/:id/replay', {
    find: async (user, id) => {
      const endpointId = await teamDeadLetter(deps.db, user.teamId, id);
      if (!endpointId) throw notFound();
      return { id, endpointId };
    },
    type: 'dead_letter',
    action: 'dead_letter.replayed',
    run: (ctx, deadLetter) => replayDeadLetter(ctx, deadLetter.id),
    next: (deadLetter) => `/app/webhooks/${deadLetter.endpointId}?done=replayed`,
  });

  // Users and invitations: owners only.
  const usersPage = async (user: DashboardUser, top: Html | '' = '') => {
    const [users, invitations] = await Promise.all([
      teamUsers(deps.db, user.teamId),
      openInvitations(deps.db, user.teamId, deps.clock.now()),
    ]);
    const roleSelect = (id: string, current: string) =>
      html`<select id="${id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === current ? html` selected` : ''}>${r}</option>`)}</select>`;
    return page(
      user,
      'Users',
      html`<div class="page-head"><h1>Team settings</h1></div>
${settingsTabs(user, 'users')}
${top}
<form method="post" action="/app/settings/users" class="card row-form">${csrfField(user)}
  <div class="field grow"><label for="invite-email">Email</label><input id="invite-email" name="email" type="email" required maxlength="320"></div>
  <div class="field"><label for="invite-role">Role</label>${roleSelect('invite-role', 'member')}</div>
  <button type="submit" class="primary">Invite</button>
</form>
<p class="hint">Owners can do everything; admins everything but users; members read and export.</p>
${table({
  caption: 'Users',
  head: ['Email', 'Role', 'State', 'Since', ''],
  empty: 'No users.',
  rows: users.map(
    (u) => html`<tr><th scope="row">${u.email}</th><td>${
      u.id === user.id
        ? u.role
        : html`<form method="post" action="/app/users/${u.id}/role" class="inline">${csrfField(user)}<label class="visually-hidden" for="role-${u.id}">Role of ${u.email}</label>${roleSelect(`role-${u.id}`, u.role)}<button type="submit" class="secondary">Change role</button></form>`
    }</td><td>${u.password_hash ? 'Active' : 'Invited'}</td><td>${when(u.created_at)}</td>
<td>${u.id === user.id ? '' : actionButton(user, `/app/users/${u.id}/remove`, 'Remove', { danger: true, allowed: true })}</td></tr>`,
  ),
})}
${table({
  caption: 'Open invitations',
  head: ['Email', 'Role', 'Expires'],
  empty: 'No open invitations.',
  rows: invitations.map(
    (i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.expires_at)}</td></tr>`,
  ),
})}`,
    );
  };

  app.get(
    '/settings/users',
    { config: { may: 'manage-users' } },
    withUser(async (request, reply, user) => {
      return htmlPage(reply, await usersPage(user, notice(doneOf(request))));
    }),
  );

  app.post(
    '/settings/users',
    { config: { may: 'manage-users' } },
    withUser(async (request, reply, user) => {
      const form = formOf(request);
      const role = form.get('role');
      if (!isRole(role)) throw new DashboardError(400, 'Check what you entered', 'Choose a role.');
      const invitation = await inviteUser(
        userWrite<Invitation>(deps, user, (done) => ({
          action: 'user.invited',
          subject: { type: 'user', id: done.userId },
          after: { email: done.email, role: done.role, expiresAt: done.expiresAt },
        })),
        { teamId: user.teamId, email: form.get('email'), role },
      ).catch((err) => {
        throw asPage(err);
      });
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
      return htmlPage(
        reply,
        await usersPage(
          user,
          shownOnce(
            `Invitation for ${invitation.email}`,
            address,
            `Send this address to the person: it works once, for 7 days.${mailed}`,
          ),
        ),
        201,
      );
    }),
  );

  app.post(
    '/users/:id/role',
    { config: { may: 'manage-users' } },
    withUser(async (request, reply, user) => {
      const role = formOf(request).get('role');
      if (!isRole(role)) throw new DashboardError(400, 'Check what you entered', 'Choose a role.');
      const ctx = userWrite<RoleChange>(deps, user, (done) => ({
        action: 'user.role_changed',
        subject: { type: 'user', id: done.id },
        before: { email: done.email, role: done.before },
        after: { email: done.email, role: done.after },
      }));
      await changeRole(ctx, idParam(request), role).catch((err) => {
        throw asPage(err);
      });
      return redirect(reply, '/app/settings/users?done=user-saved');
    }),
  );

  app.post(
    '/users/:id/remove',
    { config: { may: 'manage-users' } },
    withUser(async (request, reply, user) => {
      const id = idParam(request);
      if (id === user.id)
        throw new DashboardError(409, 'That cannot be done now', 'You cannot remove yourself.');
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

  // The audit log: every change made in the dashboard, newest first.
  app.get(
    '/settings/audit',
    withUser(async (request, reply, user) => {
      const query = request.query as Record<string, unknown>;
      const before = typeof query.before === 'string' ? parseCursor(query.before) : undefined;
      const rows = await auditPage(deps.db, user.teamId, { limit: AUDIT_PAGE + 1, before });
      const last = rows[AUDIT_PAGE - 1];
      const body = html`<div class="page-head"><h1>Team settings</h1></div>
${settingsTabs(user, 'audit')}
${table({
  caption: 'Audit log, newest first',
  csv: '/app/settings/audit.csv',
  head: ['When', 'Who', 'Action', 'Subject', 'Changes'],
  empty: 'No changes yet.',
  rows: rows.slice(0, AUDIT_PAGE).map(
    (
      r,
    ) => html`<tr><td>${when(r.at)}</td><td>${r.user_email}</td><td>${r.action}</td><td>${r.subject_type}${r.subject_id ? html`<br><code class="small">${r.subject_id}</code>` : ''}</td>
<td>${changes(r.before, r.after)}</td></tr>`,
  ),
})}
${rows.length > AUDIT_PAGE && last ? html`<nav class="pager" aria-label="Pages"><a href="/app/settings/audit?before=${`${last.at.toISOString()}_${last.id}`}">Older</a></nav>` : ''}`;
      return htmlPage(reply, page(user, 'Audit log', body));
    }),
  );

  app.get(
    '/settings/audit.csv',
    withUser(async (_request, reply, user) => {
      async function* rows() {
        let before: { at: Date; id: string } | undefined;
        for (;;) {
          const batch = await auditPage(deps.db, user.teamId, { limit: 500, before });
          for (const r of batch) {
            yield [
              r.at.toISOString(),
              r.user_email,
              r.action,
              r.subject_type,
              r.subject_id ?? '',
              JSON.stringify(r.before),
              JSON.stringify(r.after),
            ];
          }
          const last = batch.at(-1);
          if (batch.length < 500 || !last) return;
          before = { at: last.at, id: last.id };
        }
      }
      return sendCsv(
        reply,
        'audit-log',
        ['at', 'userEmail', 'action', 'subjectType', 'subjectId', 'before', 'after'],
        rows(),
      );
    }),
  );

  // The signed-in person's own account: sessions and password.
  const accountPage = async (user: DashboardUser, top: Html | '' = '', status = 200) => {
    const sessions = await userSessions(deps.db, user.id, deps.clock.now());
    return {
      status,
      body: page(
        user,
        'Your account',
        html`<div class="page-head"><div><p class="eyebrow">${user.teamName} · ${user.role}</p><h1>${user.email}</h1></div></div>
${top}
${table({
  caption: 'Where you are signed in',
  head: ['Browser', 'Address', 'Signed in', 'Last seen', ''],
  empty: 'No sessions.',
  rows: sessions.map(
    (
      s,
    ) => html`<tr><td>${s.user_agent.slice(0, 80) || 'Unknown'}</td><td>${s.address}</td><td>${when(s.created_at)}</td><td>${when(s.last_seen_at)}</td>
<td>${s.id === user.sessionId ? 'This browser' : actionButton(user, `/app/account/sessions/${s.id}/end`, 'End session', { allowed: true })}</td></tr>`,
  ),
})}
<form method="post" action="/app/account/password" class="card stack">${csrfField(user)}
  <h2>Change password</h2>
  <div class="field"><label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="new-password">New password</label><input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10"></div>
  <div class="field"><label for="confirm">Confirm password</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required></div>
  <button type="submit" class="primary">Change password</button>
</form>`,
        'account',
      ),
    };
  };

  app.get(
    '/account',
    withUser(async (request, reply, user) => {
      const { body } = await accountPage(user, notice(doneOf(request)));
      return htmlPage(reply, body);
    }),
  );

  app.post(
    '/account/sessions/:id/end',
    { config: { may: 'own-account' } },
    withUser(async (request, reply, user) => {
      await deleteSession(deps.db, idParam(request), user.id);
      return redirect(reply, '/app/account?done=session-ended');
    }),
  );

  app.post(
    '/account/password',
    { config: { may: 'own-account' } },
    withUser(async (request, reply, user) => {
      const form = formOf(request);
      const next = String(form.raw.password ?? '');
      const wrong = checkNewPassword(next, String(form.raw.confirm ?? ''));
      if (wrong) {
        const { body } = await accountPage(user, problem(wrong));
        return htmlPage(reply, body, 400);
      }
      const changed = await changePassword(
        userWrite(deps, user, () => ({
          action: 'user.password_changed',
          subject: { type: 'user', id: user.id },
        })),
        { id: user.id, sessionId: user.sessionId },
        String(form.raw.current ?? ''),
        next,
      );
      if (!changed) {
        const { body } = await accountPage(user, problem('The current password is not right'));
        return htmlPage(reply, body, 400);
      }
      return redirect(reply, '/app/account?done=password-changed');
    }),
  );
};

function parseCursor(text: string): { at: Date; id: string } | undefined {
  const [at, id] = text.split('_');
  const when = new Date(at ?? '');
  if (Number.isNaN(when.getTime()) || !id || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
  return { at: when, id };
}

/** Fields that name a subject, shown for what was created or deleted. */
const NAMING = ['name', 'email', 'url', 'role', 'status', 'shortId', 'replayed'];

/** What changed: each field whose value differs, before → after; for a creation or deletion, its naming fields. */
function changes(before: unknown, after: unknown): Html | string {
  const fields = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const b = fields(before);
  const a = fields(after);
  const show = (v: unknown) =>
    v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v);
  let rows: [string, string][];
  if (b && a) {
    rows = Object.keys(b)
      .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
      .map((k) => [k, `${show(b[k])} → ${show(a[k])}`]);
  } else {
    const one = a ?? b;
    rows = one ? NAMING.filter((k) => k in one).map((k) => [k, show(one[k])]) : [];
  }
  if (rows.length === 0) return '';
  return html`<dl class="diff">${rows.slice(0, 8).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

import { type Html, html } from '../../core/html.ts';
import type { UserRow } from '../../users/repo.ts';
import { ROLES, type Role } from '../../users/roles.ts';
import type { DashboardUser } from '../auth.ts';
import { errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import { actionButton, csrfField, table, when } from '../layout.ts';
import { settingsPage } from './settings.ts';

/** The invitation form's fields, by name, and their labels. */
export const INVITE_FIELDS = { email: 'Email', role: 'Role' };

export interface UsersPage {
  users: readonly UserRow[];
  invitations: readonly { email: string; role: Role; expires_at: Date }[];
}

const roleSelect = (id: string, current: string) =>
  html`<select id="${id}" name="role">${ROLES.map((r) => html`<option value="${r}"${r === current ? html` selected` : ''}>${r}</option>`)}</select>`;

/** The team's users and open invitations, and the form that invites (sent back with `form`). */
export function usersView(
  user: DashboardUser,
  data: UsersPage,
  o: { top?: Html | ''; form?: FormState } = {},
): string {
  const email = fieldError(o.form, 'email', 'invite-email');
  return settingsPage(
    user,
    'Users',
    'users',
    html`${errorSummary(o.form, { email: 'invite-email', role: 'invite-role' })}
${o.top ?? ''}
<form method="post" action="/app/settings/users" class="card row-form" novalidate>${csrfField(user)}
  <div class="field grow"><label for="invite-email">Email</label>${email.message}<input id="invite-email" name="email" type="email" maxlength="320" value="${typed(o.form, 'email')}"${email.attributes}></div>
  <div class="field"><label for="invite-role">Role</label>${roleSelect('invite-role', typed(o.form, 'role', 'member'))}</div>
  <button type="submit" class="primary">Invite</button>
</form>
<p class="hint">Owners can do everything; admins everything but users; members read and export.</p>
${table({
  caption: 'Users',
  head: ['Email', 'Role', 'State', 'Since', ''],
  empty: 'No users.',
  rows: data.users.map(
    (u) => html`<tr><th scope="row">${u.email}</th><td>${
      u.id === user.id
        ? u.role
        : html`<form method="post" action="/app/users/${u.id}/role" class="inline">${csrfField(user)}<label class="visually-hidden" for="role-${u.id}">Role of ${u.email}</label>${roleSelect(`role-${u.id}`, u.role)}<button type="submit" class="secondary">Change role</button></form>`
    }</td><td>${u.password_hash ? 'Active' : 'Invited'}</td><td>${when(u.created_at, user.timezone)}</td>
<td>${u.id === user.id ? '' : actionButton(user, `/app/users/${u.id}/remove`, 'Remove', { danger: true, allowed: true })}</td></tr>`,
  ),
})}
${table({
  caption: 'Open invitations',
  head: ['Email', 'Role', 'Expires'],
  empty: 'No open invitations.',
  rows: data.invitations.map(
    (i) => html`<tr><td>${i.email}</td><td>${i.role}</td><td>${when(i.expires_at, user.timezone)}</td></tr>`,
  ),
})}`,
  );
}

import { type Html, html } from '../../core/html.ts';
import type { ApiKeyView } from '../../keys/commands.ts';
import type { DashboardUser } from '../auth.ts';
import { errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import { actionButton, count, csrfField, mayChange, table, when } from '../layout.ts';
import { settingsPage } from './settings.ts';

/** The key form's fields, by name: their labels, and the ids the error summary links to. */
export const KEY_FIELDS = { name: 'Name' };

/** The team's API keys, the form for a new one (sent back with `form`), and what is on top. */
export function keysView(
  user: DashboardUser,
  keys: readonly ApiKeyView[],
  maxActive: number,
  o: { top?: Html | ''; form?: FormState } = {},
): string {
  const active = keys.filter((k) => !k.revokedAt).length;
  const name = fieldError(o.form, 'name', 'key-name');
  return settingsPage(
    user,
    'API keys',
    'keys',
    html`${errorSummary(o.form, { name: 'key-name' })}
${o.top ?? ''}
<p class="lead">Keys read this team's figures through API v1. ${count(active)} of ${maxActive} active keys in use.</p>
${
  mayChange(user)
    ? active >= maxActive
      ? html`<p class="alert" role="alert">A team can hold ${maxActive} active keys. Revoke one to create another.</p>`
      : html`<form method="post" action="/app/settings/keys" class="card row-form" novalidate>${csrfField(user)}
  <div class="field grow"><label for="key-name">Name</label>${name.message}<input id="key-name" name="name" maxlength="200" placeholder="e.g. CRM sync" value="${typed(o.form, 'name')}"${name.attributes}></div>
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
    ) => html`<tr><th scope="row">${k.name}</th><td><code>${k.prefix}…</code></td><td>${when(k.createdAt, user.timezone)}</td><td>${when(k.lastUsedAt, user.timezone)}</td>
<td>${k.revokedAt ? `Revoked ${when(k.revokedAt, user.timezone)}` : 'Active'}</td>${mayChange(user) ? html`<td>${k.revokedAt ? '' : actionButton(user, `/app/keys/${k.id}/revoke`, 'Revoke', { danger: true })}</td>` : ''}</tr>`,
  ),
})}`,
  );
}

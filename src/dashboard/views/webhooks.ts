import { type Html, html } from '../../core/html.ts';
import { EVENT_TYPES } from '../../events/catalogue.ts';
import type { DeadLetter, TestSend, WebhookAttempt, WebhookEndpoint } from '../../webhooks/repo.ts';
import type { DashboardUser } from '../auth.ts';
import { chosen, errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import { actionButton, count, csrfField, dashboardPage, mayChange, table, when } from '../layout.ts';
import { settingsPage } from './settings.ts';

/** The endpoint form's fields, by name, and their labels. */
export const ENDPOINT_FIELDS = { url: 'URL', events: 'Events' };

/** The team's endpoints and the form for a new one (sent back with `form`). */
export function webhooksView(
  user: DashboardUser,
  endpoints: readonly WebhookEndpoint[],
  deadLetters: number,
  maxEndpoints: number,
  o: { top?: Html | ''; form?: FormState } = {},
): string {
  const url = fieldError(o.form, 'url', 'endpoint-url');
  const events = chosen(o.form, 'events');
  return settingsPage(
    user,
    'Webhooks',
    'webhooks',
    html`${errorSummary(o.form, { url: 'endpoint-url', events: 'events' })}
${o.top ?? ''}
<p class="lead">Endpoints receive every event of this team, signed (Standard Webhooks). ${count(deadLetters)} dead letter${deadLetters === 1 ? '' : 's'} waiting.</p>
${
  mayChange(user) && endpoints.length < maxEndpoints
    ? html`<form method="post" action="/app/settings/webhooks" class="card stack" novalidate>${csrfField(user)}
  <h2>New endpoint</h2>
  <div class="field"><label for="endpoint-url">URL</label>${url.message}<input id="endpoint-url" name="url" type="url" maxlength="2048" placeholder="https://" value="${typed(o.form, 'url')}"${url.attributes}></div>
  <details${events.size > 0 ? html` open` : ''}><summary>Only some events</summary><fieldset id="events"><legend>Events (none chosen: every event)</legend><ul class="choices columns-3">
    ${EVENT_TYPES.map((t) => html`<li class="field check"><input id="ev-${t}" name="events" type="checkbox" value="${t}"${events.has(t) ? html` checked` : ''}><label for="ev-${t}">${t}</label></li>`)}
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
<td>${e.enabled ? 'Enabled' : 'Disabled'}</td><td>${when(e.createdAt, user.timezone)}</td></tr>`,
  ),
})}`,
  );
}

export interface EndpointPage {
  endpoint: WebhookEndpoint;
  deadLetters: readonly DeadLetter[];
  attempts: { total: number; items: readonly WebhookAttempt[] };
  /** The latest test events sent from this page. */
  tests?: readonly TestSend[];
}

/** An endpoint's address and events, changed in place (sent back with what was typed). */
function endpointForm(user: DashboardUser, endpoint: WebhookEndpoint, form: FormState | undefined): Html {
  const url = fieldError(form, 'url', 'edit-url');
  const events = form ? chosen(form, 'events') : new Set(endpoint.events ?? []);
  return html`<section class="card"><h2>Change the endpoint</h2>
${errorSummary(form, { url: 'edit-url', events: 'edit-events' })}
<form method="post" action="/app/webhooks/${endpoint.id}" class="stack" novalidate>${csrfField(user)}
  <div class="field"><label for="edit-url">URL</label>${url.message}<input id="edit-url" name="url" type="url" maxlength="2048" value="${typed(form, 'url', endpoint.url)}"${url.attributes}></div>
  <fieldset id="edit-events"><legend>Events (none chosen: every event)</legend><ul class="choices columns-3">
    ${EVENT_TYPES.map((t) => html`<li class="field check"><input id="edit-ev-${t}" name="events" type="checkbox" value="${t}"${events.has(t) ? html` checked` : ''}><label for="edit-ev-${t}">${t}</label></li>`)}
  </ul></fieldset>
  <button type="submit" class="primary">Save endpoint</button>
</form></section>`;
}

/** One endpoint: its actions and settings, dead letters and recent attempts. */
export function endpointView(
  user: DashboardUser,
  data: EndpointPage,
  top: Html | '' = '',
  form?: FormState,
): string {
  const { endpoint, deadLetters: dead, attempts } = data;
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
${actionButton(user, `/app/webhooks/${endpoint.id}/delete`, 'Remove endpoint', { danger: true })}</div>
${endpointForm(user, endpoint, form)}`
    : ''
}
${table({
  caption: 'Dead letters',
  head: ['Failed', 'Event', 'Attempts', 'Last status', 'Last error', ...(mayChange(user) ? [''] : [])],
  empty: 'No dead letters.',
  rows: dead.map(
    (d) =>
      html`<tr><td>${when(d.failedAt, user.timezone)}</td><td>${d.type}</td><td class="num">${d.attempts}</td><td>${d.lastStatus ?? '—'}</td><td>${d.lastError ?? ''}</td>${mayChange(user) ? html`<td>${actionButton(user, `/app/dead-letters/${d.id}/replay`, 'Replay')}</td>` : ''}</tr>`,
  ),
})}
${table({
  caption: `Recent attempts (${count(attempts.total)} in all${data.tests?.length ? `, and the latest test events` : ''})`,
  head: ['When', 'Event', 'Status', 'Time', 'Error'],
  numeric: [3],
  empty: 'No attempts yet.',
  rows: [
    ...attempts.items.map((a) => ({ ...a, at: a.attemptedAt })),
    ...(data.tests ?? []).map((t) => ({ ...t, at: t.sentAt, type: `Test event, sent by ${t.sentBy}` })),
  ]
    .sort((a, b) => new Date(b.at).getTime() - new Date(a.at).getTime())
    .slice(0, 50)
    .map(
      (a) =>
        html`<tr><td>${when(a.at, user.timezone)}</td><td>${a.type}</td><td>${a.status ?? 'no answer'}</td><td class="num">${a.durationMs} ms</td><td>${a.error ?? ''}</td></tr>`,
    ),
})}`,
  });
}

import { html } from '../../core/html.ts';
import type { NotificationRow } from '../../notifications/repo.ts';
import type { DashboardUser } from '../auth.ts';
import { dashboardPage, publicPage, table, when } from '../layout.ts';

const STATES: Record<string, string> = {
  pending: 'Due',
  sending: 'Sending',
  sent: 'Sent',
  kept: 'Not mailed (this service sends no email): shown here only',
  failed: 'Could not be sent',
};

/** What the person was told (or would have been, without SMTP), newest first, each leading to the visit. */
export function notificationsView(
  user: DashboardUser,
  rows: readonly NotificationRow[],
  deps: { mailer?: unknown },
): string {
  return dashboardPage(user, {
    title: 'Notifications',
    section: 'notifications',
    body: html`<div class="page-head"><div><p class="eyebrow">${user.email}</p><h1>Notifications</h1></div></div>
${
  deps.mailer
    ? ''
    : html`<p class="alert" role="status">This service is not set up to send email: your notifications are listed here instead.</p>`
}
<p class="lead">Visit emails for the rooms you follow, and daily digests. Choose which on <a href="/app/account#visit-emails">your account</a>.</p>
${table({
  caption: 'Newest first',
  head: ['When', 'What', 'State', ''],
  empty: 'Nothing yet. A visit to a room you follow appears here a few minutes after it starts.',
  rows: rows.map(
    (n) => html`<tr><td>${when(n.sent_at ?? n.due_at, user.timezone)}</td>
<td>${n.subject ? html`<details><summary>${n.subject}</summary><pre class="mail">${n.body_text ?? ''}</pre></details>` : n.kind === 'visit' ? `A visit to ${n.room_name ?? 'a room'}` : 'Daily digest'}</td>
<td>${STATES[n.state] ?? n.state}${n.error ? html` <span class="muted">(${n.error})</span>` : ''}</td>
<td>${n.viewer_id ? html`<a href="/app/viewers/${n.viewer_id}">The visit</a>` : ''}</td></tr>`,
  ),
})}`,
  });
}

/** An email's unsubscribe page: one button; then what stopped. */
export function unsubscribePage(
  token: string,
  done: { kind: 'visit' | 'digest'; roomName: string | null } | 'unknown' | undefined,
): string {
  if (done === 'unknown') {
    return publicPage(
      'Unsubscribe',
      html`<section class="card"><h1>This link does not work</h1><p>It may be from an email that was never sent. Change your emails on your account page instead.</p></section>`,
    );
  }
  if (done) {
    return publicPage(
      'Unsubscribed',
      html`<section class="card" role="status"><h1>You are unsubscribed</h1><p>${
        done.kind === 'visit'
          ? `You will get no more visit emails for ${done.roomName ?? 'this room'}. Follow the room again on its page to get them back.`
          : 'You will get no more daily digests. Choose again on your account page.'
      }</p></section>`,
    );
  }
  return publicPage(
    'Unsubscribe',
    html`<section class="card"><h1>Stop these emails?</h1>
<form method="post" action="/unsubscribe/${token}"><button type="submit" class="primary">Unsubscribe</button></form></section>`,
  );
}

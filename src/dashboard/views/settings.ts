import { type Html, html } from '../../core/html.ts';
import type { DashboardUser } from '../auth.ts';
import { dashboardPage, mayManageUsers } from '../layout.ts';

export type SettingsTab = 'team' | 'keys' | 'webhooks' | 'users' | 'audit';

/** A page of the team's settings, with its tabs. */
export function settingsPage(user: DashboardUser, title: string, current: SettingsTab, body: Html): string {
  const tab = (key: SettingsTab, href: string, label: string) =>
    html`<a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return dashboardPage(user, {
    title,
    section: 'settings',
    crumbs: [['/app/settings', 'Team settings']],
    body: html`<div class="page-head"><h1>Team settings</h1></div>
<nav class="tabs" aria-label="Team settings">
  ${tab('team', '/app/settings/team', 'Team')}
  ${tab('keys', '/app/settings/keys', 'API keys')}
  ${tab('webhooks', '/app/settings/webhooks', 'Webhooks')}
  ${mayManageUsers(user) ? tab('users', '/app/settings/users', 'Users') : ''}
  ${tab('audit', '/app/settings/audit', 'Audit log')}
</nav>
${body}`,
  });
}

/** A secret shown once, with a button that copies it. */
export function shownOnce(label: string, value: string, detail: string): Html {
  return html`<section class="card once" role="status">
  <h2>${label}</h2>
  <p>${detail}</p>
  <p><code class="secret" id="shown-once">${value}</code> <button type="button" class="copy secondary" data-copy="${value}">Copy</button></p>
</section>`;
}

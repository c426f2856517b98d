import { type Html, html, page } from '../core/html.ts';
import { inZone } from '../core/zones.ts';
import { canChange, canManageUsers } from '../users/roles.ts';
import type { DashboardUser } from './auth.ts';

export type Section = 'rooms' | 'activity' | 'notifications' | 'settings' | 'account';

/** A dashboard page: the team's navigation, the page's own heading and content, the Sign out form. */
export function dashboardPage(
  user: DashboardUser,
  o: { title: string; section: Section; body: Html; crumbs?: [string, string][]; scripts?: string[] },
): string {
  const nav = (section: Section, href: string, label: string) =>
    html`<a href="${href}"${o.section === section ? html` aria-current="page"` : ''}>${label}</a>`;
  return page({
    title: `${o.title} · ${user.teamName}`,
    stylesheets: ['/assets/dashboard.css'],
    // Libraries first: module scripts run in order, and dashboard.js uses them.
    scripts: [...(o.scripts ?? []), '/assets/dashboard.js'],
    body: html`<a class="skip" href="#main">Skip to content</a>
<header class="topbar">
  <a class="brand" href="/app/rooms">◆ Deal Room</a>
  <nav aria-label="Main">
    ${nav('rooms', '/app/rooms', 'Rooms')}
    ${nav('activity', '/app/activity', 'Activity')}
    ${nav('notifications', '/app/notifications', 'Notifications')}
    ${nav('settings', '/app/settings', 'Team settings')}
    ${nav('account', '/app/account', 'Account')}
  </nav>
  <form method="post" action="/logout" class="signout">
    ${csrfField(user)}
    <button type="submit" class="link-button">Sign out</button>
  </form>
</header>
<main id="main">
  ${
    o.crumbs && o.crumbs.length > 0
      ? html`<nav aria-label="Breadcrumb" class="crumbs"><ol>${o.crumbs.map(([href, label]) => html`<li><a href="${href}">${label}</a></li>`)}</ol></nav>`
      : ''
  }
  ${o.body}
</main>`,
  });
}

/** A page for people who are not signed in: sign-in, invitations, errors. */
export function publicPage(title: string, body: Html): string {
  return page({
    title,
    stylesheets: ['/assets/dashboard.css'],
    body: html`<header class="topbar"><span class="brand">◆ Deal Room</span></header>
<main id="main" class="narrow">${body}</main>`,
  });
}

export function csrfField(user: DashboardUser): Html {
  return html`<input type="hidden" name="_csrf" value="${user.csrf}">`;
}

/** A one-button form for a change (publish, revoke, replay...), shown only to roles that may change. */
export function actionButton(
  user: DashboardUser,
  action: string,
  label: string,
  o: { danger?: boolean; fields?: Record<string, string>; allowed?: boolean } = {},
): Html | '' {
  if (!(o.allowed ?? canChange(user.role))) return '';
  const confirm = o.danger ? html` data-confirm="${label}?"` : '';
  return html`<form method="post" action="${action}" class="inline"${confirm}>${csrfField(user)}${Object.entries(
    o.fields ?? {},
  ).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button type="submit" class="${o.danger ? 'danger' : 'secondary'}">${label}</button></form>`;
}

export const mayChange = (user: DashboardUser): boolean => canChange(user.role);
export const mayManageUsers = (user: DashboardUser): boolean => canManageUsers(user.role);

/** Something just done, said once at the top of the page. */
export function notice(text: string | undefined): Html | '' {
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

export function problem(text: string | undefined): Html | '' {
  return text ? html`<p class="alert" role="alert">${text}</p>` : '';
}

/** Seconds as people read them: 45 s, 3 min 20 s, 2 h 5 min. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  return `${Math.floor(s / 3600)} h${Math.floor((s % 3600) / 60) ? ` ${Math.floor((s % 3600) / 60)} min` : ''}`;
}

/** A moment as the reader's zone shows it, the zone named (`2026-11-26 13:34 EST`); '—' for none. */
export function when(at: Date | string | null | undefined, zone: string): string {
  if (!at) return '—';
  return inZone(new Date(at), zone);
}

export const count = (n: number): string => n.toLocaleString('en-US');

/** A table with a caption, its header row, its rows and (optionally) a CSV address. */
export function table(o: {
  caption: string;
  head: string[];
  rows: Html[];
  empty: string;
  csv?: string;
  numeric?: number[];
}): Html {
  // Focusable, so a table wider than the screen scrolls from the keyboard too.
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${o.caption}">
  <table>
    <caption>${o.caption}${o.csv ? html` <a class="csv" href="${o.csv}">Download CSV</a>` : ''}</caption>
    <thead><tr>${o.head.map((h, i) => html`<th scope="col"${o.numeric?.includes(i) ? html` class="num"` : ''}>${h}</th>`)}</tr></thead>
    <tbody>${o.rows.length > 0 ? o.rows : html`<tr><td colspan="${o.head.length}" class="empty">${o.empty}</td></tr>`}</tbody>
  </table>
</div>`;
}

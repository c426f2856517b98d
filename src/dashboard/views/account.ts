import { type Html, html } from '../../core/html.ts';
import type { SessionRow } from '../../users/repo.ts';
import type { DashboardUser } from '../auth.ts';
import { actionButton, csrfField, dashboardPage, table, when } from '../layout.ts';
import { ZONES } from './team.ts';

/** The signed-in person's own account: where they are signed in, and the password form. */
export function accountView(
  user: DashboardUser,
  sessions: readonly SessionRow[],
  zones: { own: string | null; team: string },
  emails: { visit_emails: string; digest_hour: number },
  top: Html | '' = '',
): string {
  const choice = (value: string, label: string, hint: string) =>
    html`<div class="field check"><input id="visit-emails-${value}" name="visitEmails" type="radio" value="${value}"${emails.visit_emails === value ? html` checked` : ''} aria-describedby="visit-emails-${value}-hint"><label for="visit-emails-${value}">${label}</label>
      <p class="hint" id="visit-emails-${value}-hint">${hint}</p></div>`;
  return dashboardPage(user, {
    title: 'Your account',
    section: 'account',
    body: html`<div class="page-head"><div><p class="eyebrow">${user.teamName} · ${user.role}</p><h1>${user.email}</h1></div></div>
${top}
${table({
  caption: 'Where you are signed in',
  head: ['Browser', 'Address', 'Signed in', 'Last seen', ''],
  empty: 'No sessions.',
  rows: sessions.map(
    (
      s,
    ) => html`<tr><td title="${s.user_agent.slice(0, 300)}">${deviceOf(s.user_agent)}</td><td>${s.address}</td><td>${when(s.created_at, user.timezone)}</td><td>${when(s.last_seen_at, user.timezone)}</td>
<td>${s.id === user.sessionId ? 'This browser' : actionButton(user, `/app/account/sessions/${s.id}/end`, 'End session', { allowed: true })}</td></tr>`,
  ),
})}
<form method="post" action="/app/account/notifications" class="card stack" id="visit-emails">${csrfField(user)}
  <fieldset><legend>Visit emails</legend>
    ${choice('instant', 'Instant', 'An email a few minutes after each visit to a room you follow: who, which documents, pages and time.')}
    ${choice('digest', 'Daily digest', 'One email a day with the visits, readers and top pages of the rooms you follow.')}
    ${choice('off', 'Off', 'No email; the Notifications page still lists nothing new.')}
  </fieldset>
  <div class="field"><label for="digest-hour">Digest time</label><select id="digest-hour" name="digestHour">
    ${Array.from({ length: 24 }, (_, h) => html`<option value="${h}"${h === emails.digest_hour ? html` selected` : ''}>${String(h).padStart(2, '0')}:00 (${user.timezone})</option>`)}
  </select></div>
  <button type="submit" class="secondary">Save visit emails</button>
</form>
<form method="post" action="/app/account/timezone" class="card stack">${csrfField(user)}
  <h2>Your timezone</h2>
  <div class="field"><label for="own-timezone">Timezone</label><select id="own-timezone" name="timezone" aria-describedby="own-timezone-hint">
    <option value=""${zones.own === null ? html` selected` : ''}>As the team (${zones.team})</option>
    ${ZONES.map((z) => html`<option${z === zones.own ? html` selected` : ''}>${z}</option>`)}
  </select><p class="hint" id="own-timezone-hint">Every time on your pages is shown in it.</p></div>
  <button type="submit" class="secondary">Save timezone</button>
</form>
<form method="post" action="/app/account/password" class="card stack">${csrfField(user)}
  <h2>Change password</h2>
  <div class="field"><label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="new-password">New password</label><input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="10"></div>
  <div class="field"><label for="confirm">Confirm password</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required></div>
  <button type="submit" class="primary">Change password</button>
</form>`,
  });
}

/** A browser and its system, named as people know them ("Firefox on Windows"), from a User-Agent. */
export function deviceOf(userAgent: string): string {
  const browser =
    [
      [/Edg\//, 'Edge'],
      [/OPR\/|Opera/, 'Opera'],
      [/Firefox\//, 'Firefox'],
      [/HeadlessChrome/, 'Headless Chrome'],
      [/Chrome\/|CriOS\//, 'Chrome'],
      [/Safari\//, 'Safari'],
      [/curl\//, 'curl'],
    ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1] ?? 'A browser';
  const system = [
    [/iPhone|iPad|iPod/, 'iOS'],
    [/Android/, 'Android'],
    [/Windows/, 'Windows'],
    [/Mac OS X|Macintosh/, 'macOS'],
    [/CrOS/, 'ChromeOS'],
    [/Linux/, 'Linux'],
  ].find(([pattern]) => (pattern as RegExp).test(userAgent))?.[1];
  if (!userAgent) return 'Unknown browser';
  return system ? `${browser} on ${system}` : String(browser);
}

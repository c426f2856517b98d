import type { AuditRow } from '../../audit/repo.ts';
import { type Html, html } from '../../core/html.ts';
import type { DashboardUser } from '../auth.ts';
import { table, when } from '../layout.ts';
import { settingsPage } from './settings.ts';

/** A page of the audit log, newest first, with the address of the next older page. */
export function auditView(user: DashboardUser, rows: readonly AuditRow[], older: string | undefined): string {
  return settingsPage(
    user,
    'Audit log',
    'audit',
    html`${table({
      caption: 'Audit log, newest first',
      csv: '/app/settings/audit.csv',
      head: ['When', 'Who', 'Action', 'Subject', 'Changes'],
      empty: 'No changes yet.',
      rows: rows.map(
        (
          r,
        ) => html`<tr><td>${when(r.at)}</td><td>${r.user_email}</td><td>${r.action}</td><td>${r.subject_type}${r.subject_id ? html`<br><code class="small">${r.subject_id}</code>` : ''}</td>
<td>${changes(r.before, r.after)}</td></tr>`,
      ),
    })}
${older ? html`<nav class="pager" aria-label="Pages"><a href="${older}">Older</a></nav>` : ''}`,
  );
}

/** Fields that name a subject, shown for what was created or deleted. */
const NAMING = ['name', 'email', 'url', 'role', 'status', 'shortId', 'replayed'];

/** What changed: each field whose value differs, before → after; for a creation or deletion, its naming fields. */
export function changes(before: unknown, after: unknown): Html | string {
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

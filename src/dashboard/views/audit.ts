import type { AuditRow } from '../../audit/repo.ts';
import { type Html, html } from '../../core/html.ts';
import type { DashboardUser } from '../auth.ts';
import { table, when } from '../layout.ts';
import { settingsPage } from './settings.ts';

export interface AuditQuery {
  email: string;
  action: string;
  /** YYYY-MM-DD, the first and last day shown (UTC). */
  from: string;
  to: string;
}

const SUBJECTS: Record<string, { word: string; href?: (id: string) => string }> = {
  deal_room: { word: 'Room', href: (id) => `/app/rooms/${id}` },
  document: { word: 'Document', href: (id) => `/app/documents/${id}` },
  link: { word: 'Link', href: (id) => `/app/links/${id}` },
  user: { word: 'User' },
  api_key: { word: 'API key' },
  webhook_endpoint: { word: 'Endpoint', href: (id) => `/app/webhooks/${id}` },
  dead_letter: { word: 'Dead letter' },
};

/** The audit log, newest first: filtered by person, action and days, each subject named. */
export function auditView(
  user: DashboardUser,
  rows: readonly AuditRow[],
  o: {
    query: AuditQuery;
    choices: { emails: string[]; actions: string[] };
    older: string | undefined;
    csv: string;
  },
): string {
  const { query, choices } = o;
  const option = (value: string, current: string, label = value) =>
    html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return settingsPage(
    user,
    'Audit log',
    'audit',
    html`<form method="get" action="/app/settings/audit" class="filters" role="search" aria-label="Filter the audit log">
  <div class="field"><label for="audit-email">Person</label><select id="audit-email" name="email">${option('', query.email, 'Everyone')}${choices.emails.map((e) => option(e, query.email))}</select></div>
  <div class="field"><label for="audit-action">Action</label><select id="audit-action" name="action">${option('', query.action, 'Every action')}${choices.actions.map((a) => option(a, query.action, actionWords(a)))}</select></div>
  <div class="field"><label for="audit-from">From</label><input id="audit-from" name="from" type="date" value="${query.from}"></div>
  <div class="field"><label for="audit-to">To</label><input id="audit-to" name="to" type="date" value="${query.to}"></div>
  <button type="submit" class="secondary">Filter</button>
</form>
${table({
  caption: 'Audit log, newest first',
  csv: o.csv,
  head: ['When', 'Who', 'Action', 'Subject', 'Changes'],
  empty: 'No changes match.',
  rows: rows.map(
    (r) =>
      html`<tr><td>${when(r.at, user.timezone)}</td><td>${r.user_email}</td><td>${actionWords(r.action)}</td><td>${subject(r)}</td><td>${changes(r.before, r.after, user.timezone)}</td></tr>`,
  ),
})}
${o.older ? html`<nav class="pager" aria-label="Pages"><a href="${o.older}">Older</a></nav>` : ''}`,
  );
}

/** "deal_room.created" as people say it: "Room created". */
export function actionWords(action: string): string {
  const [type = '', verb = ''] = action.split('.');
  const word = SUBJECTS[type]?.word ?? type.replaceAll('_', ' ');
  return `${word} ${verb.replaceAll('_', ' ')}`.trim();
}

function subject(r: AuditRow): Html | string {
  const kind = SUBJECTS[r.subject_type];
  const word = kind?.word ?? r.subject_type.replaceAll('_', ' ');
  const name = r.subject_name ?? (r.subject_id ? r.subject_id.slice(0, 8) : '');
  if (kind?.href && r.subject_id && r.subject_exists) {
    return html`${word} <a href="${kind.href(r.subject_id)}">${name}</a>`;
  }
  return `${word} ${name}`;
}

/** Fields that name a subject, shown for what was created or deleted. */
const NAMING = ['name', 'email', 'url', 'role', 'status', 'shortId', 'direction', 'replayed'];

/** A field's name in words: "downloadOverride" is "Download override". */
const label = (field: string) => {
  const words = field
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replaceAll('_', ' ')
    .toLowerCase();
  return (words.charAt(0).toUpperCase() + words.slice(1)).replace(/\burl\b/i, 'URL');
};

/** A value as people read it: yes and no, a date, a list, a dash for nothing. */
function show(value: unknown, zone: string): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(value)) return when(value, zone);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `${value.length} chosen`;
  if (typeof value === 'object') return '…';
  return String(value);
}

/** What changed: each field whose value differs, before → after; for a creation or deletion, its naming fields. */
export function changes(before: unknown, after: unknown, zone: string): Html | string {
  const fields = (value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  const b = fields(before);
  const a = fields(after);
  // Internal bookkeeping is not a change a person made.
  const shown = (k: string) =>
    !['id', 'teamId', 'dealRoomId', 'createdAt', 'updatedAt', 'position', 'url'].includes(k) ||
    NAMING.includes(k);
  let rows: [string, string][];
  if (b && a) {
    rows = Object.keys(b)
      .filter((k) => shown(k) && JSON.stringify(b[k]) !== JSON.stringify(a[k]))
      .map((k): [string, string] => [label(k), `${show(b[k], zone)} → ${show(a[k], zone)}`])
      // What only the result says (a document moved: its direction).
      .concat(
        NAMING.filter((k) => k in a && !(k in b)).map((k): [string, string] => [label(k), show(a[k], zone)]),
      );
  } else {
    const one = a ?? b;
    rows = one ? NAMING.filter((k) => k in one).map((k) => [label(k), show(one[k], zone)]) : [];
  }
  if (rows.length === 0) return '';
  return html`<dl class="diff">${rows.slice(0, 8).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>`;
}

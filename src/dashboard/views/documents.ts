import { type Html, html } from '../../core/html.ts';
import { PERIODS, type Period } from '../../core/period.ts';
import type { PageFigures } from '../../documents/schemas.ts';
import type { DashboardUser } from '../auth.ts';
import { errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import {
  actionButton,
  count,
  csrfField,
  dashboardPage,
  duration,
  mayChange,
  notice,
  table,
  when,
} from '../layout.ts';
import type { DocumentListRow, RoomRow, VersionRow } from '../repo.ts';
import { roomTabs } from './rooms.ts';

/** A document's download setting as its form and list name it: as its links say, always, never. */
export const OVERRIDES = { follow: null, always: true, never: false } as const;
export type Override = keyof typeof OVERRIDES;
export const overrideOf = (value: boolean | null): Override =>
  value === null ? 'follow' : value ? 'always' : 'never';
const OVERRIDE_LABELS: Record<Override, string> = {
  follow: 'As each link says',
  always: 'Allowed on every link',
  never: 'Off on every link',
};
/** The documents list's Download column: what a recipient can do, in a word. */
const DOWNLOAD_WORDS: Record<Override, string> = {
  follow: 'As the link says',
  always: 'Allowed',
  never: 'Off',
};

/** The document form's fields, by name, and their labels. */
export const DOCUMENT_FIELDS = { name: 'Name', displayName: 'Display name', download: 'Downloads' };

export type TeamDocument = DocumentListRow & { deal_room_id: string; room_name: string };

export const title = (d: { name: string; display_name: string | null }): string => d.display_name ?? d.name;

function fileMeta(d: DocumentListRow): string {
  if (!d.file_type) return 'No file';
  const kind = d.file_type === 'application/pdf' ? 'PDF' : d.file_type === 'image/png' ? 'PNG' : 'JPEG';
  const pages = d.page_count === 1 ? '1 page' : `${d.page_count} pages`;
  const drawing =
    d.pages_ready !== null && d.pages_ready < d.page_count
      ? ` (preparing: ${d.pages_ready} of ${d.page_count} ready)`
      : '';
  return `${kind}, ${pages}${drawing}, ${megabytes(d.size_bytes ?? 0)}`;
}

export const megabytes = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** A room's documents in the order links show them, with the upload form and each one's actions. */
export function documentsView(
  user: DashboardUser,
  room: RoomRow,
  documents: readonly DocumentListRow[],
  o: { done?: string | undefined; fileMaxBytes: number },
): string {
  const body = html`<div class="page-head"><div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div></div>
${roomTabs(room, 'documents')}
${notice(o.done)}
${
  mayChange(user)
    ? html`<form method="post" action="/app/rooms/${room.id}/documents" enctype="multipart/form-data" class="card upload" data-upload>
  ${csrfField(user)}
  <h2>Add a document</h2>
  <div class="row-form">
    <div class="field grow"><label for="file">File</label>
      <input id="file" name="file" type="file" required accept="application/pdf,image/png,image/jpeg" aria-describedby="file-hint">
      <p class="hint" id="file-hint">PDF, PNG or JPEG, up to ${megabytes(o.fileMaxBytes)}.</p></div>
    <div class="field grow"><label for="doc-name">Name</label>
      <input id="doc-name" name="name" maxlength="300" aria-describedby="doc-name-hint">
      <p class="hint" id="doc-name-hint">Optional: the file's name when empty.</p></div>
    <div class="field check"><input id="publish" name="publish" type="checkbox" value="yes" checked><label for="publish">Publish now</label></div>
    <button type="submit" class="primary">Upload</button>
  </div>
  <progress hidden max="100" value="0" aria-label="Upload progress"></progress>
</form>`
    : ''
}
<div data-reorder>
${table({
  caption: 'Documents, in the order links show them',
  csv: `/app/rooms/${room.id}/documents.csv`,
  head: ['Document', 'Status', 'File', 'Views', 'Download', ...(mayChange(user) ? ['Actions'] : [])],
  numeric: [3],
  empty: 'No documents yet.',
  rows: documents.map(
    (d, i) => html`<tr><th scope="row"><a href="/app/documents/${d.id}">${title(d)}</a></th>
<td><span class="badge ${d.status}">${d.status}</span></td><td>${fileMeta(d)}</td><td class="num">${count(d.total_views)}</td>
<td>${DOWNLOAD_WORDS[overrideOf(d.download_override)]}</td>
${
  mayChange(user)
    ? html`<td class="actions">${
        d.status === 'published'
          ? actionButton(user, `/app/documents/${d.id}/unpublish`, 'Unpublish')
          : actionButton(user, `/app/documents/${d.id}/publish`, 'Publish')
      }${i > 0 ? actionButton(user, `/app/documents/${d.id}/move`, 'Move up', { fields: { direction: 'up' } }) : ''}${
        i < documents.length - 1
          ? actionButton(user, `/app/documents/${d.id}/move`, 'Move down', { fields: { direction: 'down' } })
          : ''
      }</td>`
    : ''
}</tr>`,
  ),
})}
</div>`;
  return dashboardPage(user, {
    title: `${room.name}: documents`,
    section: 'rooms',
    crumbs: [['/app/rooms', 'Rooms']],
    body,
  });
}

/** A document: its page figures for the period, and its settings (sent back with `form`). */
export function documentView(
  user: DashboardUser,
  document: TeamDocument,
  figures: PageFigures,
  period: Period,
  o: { done?: string | undefined; form?: FormState; versions?: VersionRow[] } = {},
): string {
  const [current, ...earlier] = o.versions ?? [];
  const reach = figures.pages.map((p) =>
    figures.views > 0 ? Math.round((p.views / figures.views) * 100) : 0,
  );
  const body = html`<div class="page-head"><div><p class="eyebrow">Document</p><h1>${title(document)}</h1></div>
<span class="badge ${document.status}">${document.status}</span></div>
${errorSummary(o.form, { name: 'doc-name', displayName: 'doc-display', download: 'doc-download' })}
${notice(o.done)}
<nav class="periods" aria-label="Period">
  ${PERIODS.map((p) => html`<a href="/app/documents/${document.id}?period=${p}"${p === period ? html` aria-current="page"` : ''}>${p === 'all' ? 'All time' : p}</a>`)}
</nav>
<section class="kpis" aria-label="Key figures">
  <div class="kpi"><p class="kpi-label">Views</p><p class="kpi-value">${count(figures.views)}</p></div>
  <div class="kpi"><p class="kpi-label">Pages</p><p class="kpi-value">${count(figures.pageCount)}</p></div>
  <div class="kpi"><p class="kpi-label">Completion</p><p class="kpi-value">${Math.round(figures.completion * 100)}%</p></div>
  <div class="kpi"><p class="kpi-label">File</p><p class="kpi-value small">${fileMeta(document)}</p></div>
</section>
<div class="columns">
  <section class="card"><h2>Average time per page</h2>
    <div class="chart-box"><canvas class="chart" role="img" aria-label="Average seconds per page" data-chart="${JSON.stringify(
      {
        type: 'bar',
        label: 'Average seconds',
        labels: figures.pages.map((p) => `Page ${p.page}`),
        values: figures.pages.map((p) => p.avgActiveSeconds),
      },
    )}"></canvas></div></section>
  <section class="card"><h2>Drop-off: views reaching each page</h2>
    <div class="chart-box"><canvas class="chart" role="img" aria-label="Percent of views reaching each page" data-chart="${JSON.stringify(
      {
        type: 'line',
        label: '% of views',
        labels: figures.pages.map((p) => `Page ${p.page}`),
        values: reach,
      },
    )}"></canvas></section>
</div>
${table({
  caption: 'Reading time per page',
  csv: `/app/documents/${document.id}/pages.csv?period=${period}`,
  head: ['Page', 'Views', 'Views reaching it', 'Total time', 'Average time'],
  numeric: [1, 2, 3, 4],
  empty: 'No pages read in this period.',
  rows: figures.pages.map(
    (p, i) =>
      html`<tr><th scope="row">Page ${p.page}</th><td class="num">${count(p.views)}</td><td class="num">${reach[i]}%</td><td class="num">${duration(p.activeSeconds)}</td><td class="num">${duration(p.avgActiveSeconds)}</td></tr>`,
  ),
})}
${fileCard(user, document, current)}
${earlier.map((version) => versionFigures(version, user.timezone))}
${mayChange(user) ? documentSettings(user, document, o.form) : ''}`;
  return dashboardPage(user, {
    title: title(document),
    section: 'rooms',
    crumbs: [
      ['/app/rooms', 'Rooms'],
      [`/app/rooms/${document.deal_room_id}/documents`, document.room_name],
    ],
    body,
    scripts: ['/assets/chart.umd.min.js'],
  });
}

function documentSettings(user: DashboardUser, document: TeamDocument, form: FormState | undefined): Html {
  const current = typed(form, 'download', overrideOf(document.download_override));
  const name = fieldError(form, 'name', 'doc-name');
  const display = fieldError(form, 'displayName', 'doc-display', 'doc-display-hint');
  return html`<section class="card">
  <h2>Document settings</h2>
  <form method="post" action="/app/documents/${document.id}" class="stack" novalidate>
    ${csrfField(user)}
    <div class="field"><label for="doc-name">Name</label>${name.message}<input id="doc-name" name="name" maxlength="300" value="${typed(form, 'name', document.name)}"${name.attributes}></div>
    <div class="field"><label for="doc-display">Display name</label>${display.message}<input id="doc-display" name="displayName" maxlength="300" value="${typed(form, 'displayName', document.display_name ?? '')}"${display.attributes}>
      <p class="hint" id="doc-display-hint">What viewers see instead of the name; empty to show the name.</p></div>
    <div class="field"><label for="doc-download">Downloads</label>
      <select id="doc-download" name="download">
        ${(Object.keys(OVERRIDES) as Override[]).map((o) => html`<option value="${o}"${o === current ? html` selected` : ''}>${OVERRIDE_LABELS[o]}</option>`)}
      </select></div>
    <button type="submit" class="primary">Save document</button>
  </form>
  <div class="actions">
    ${document.status === 'published' ? actionButton(user, `/app/documents/${document.id}/unpublish`, 'Unpublish') : actionButton(user, `/app/documents/${document.id}/publish`, 'Publish')}
    ${actionButton(user, `/app/documents/${document.id}/delete`, 'Delete document', { danger: true })}
  </div>
</section>`;
}

/** The file links show now: its version, and while its pages are drawn, how far; "Replace file". */
function fileCard(user: DashboardUser, document: TeamDocument, current: VersionRow | undefined): Html {
  const drawing = current && current.pages_ready < current.page_count;
  return html`<section class="card" aria-labelledby="file-heading">
  <h2 id="file-heading">File</h2>
  ${
    current
      ? html`<p>Version ${current.version}, uploaded ${when(current.uploaded_at, user.timezone)}: ${fileMeta(document)}.</p>
  ${drawing ? html`<p><label for="pages-ready">Pages prepared for viewers</label> <progress id="pages-ready" max="${current.page_count}" value="${current.pages_ready}">${current.pages_ready} of ${current.page_count}</progress> ${current.pages_ready} of ${current.page_count}</p>` : ''}`
      : html`<p>No file yet.</p>`
  }
  ${
    mayChange(user)
      ? html`<form method="post" action="/app/documents/${document.id}/file" enctype="multipart/form-data" class="stack">
    ${csrfField(user)}
    <div class="field"><label for="replace-file">New file</label>
      <input id="replace-file" name="file" type="file" required accept="application/pdf,image/png,image/jpeg" aria-describedby="replace-hint">
      <p class="hint" id="replace-hint">PDF, PNG or JPEG. Links keep working and show the new version; what was read of this one stays below.</p></div>
    <button type="submit">${current ? 'Replace file' : 'Upload'}</button>
  </form>`
      : ''
  }
</section>`;
}

/** What was read of an earlier version: its views, and each page's views and time. */
function versionFigures(version: VersionRow, zone: string): Html {
  return table({
    caption: `Version ${version.version} (uploaded ${when(version.uploaded_at, zone)}): ${count(version.views)} ${version.views === 1 ? 'view' : 'views'}`,
    head: ['Page', 'Views', 'Total time'],
    numeric: [1, 2],
    empty: 'No pages of this version were read.',
    rows: version.pages.map(
      (p) =>
        html`<tr><th scope="row">Page ${p.page}</th><td class="num">${count(p.views)}</td><td class="num">${duration(p.seconds)}</td></tr>`,
    ),
  });
}

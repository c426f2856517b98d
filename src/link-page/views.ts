import { type Html, html, page } from '../core/html.ts';
import type { ShownDocument } from './repo.ts';

/** The gate's inputs as they were posted, to show them again with what is wrong. */
export interface GateForm {
  email?: string | undefined;
  name?: string | undefined;
}

export interface GateOptions {
  shortId: string;
  roomName: string;
  askEmail: boolean;
  askPassword: boolean;
  token: string;
  form?: GateForm;
  /** What was wrong with the last attempt, and which input it is about. */
  problem?: { message: string; field: 'email' | 'password' | 'form' };
}

function shell(title: string, main: Html, options: { scripts?: string[]; bodyClass?: string } = {}): string {
  return page({
    title,
    scripts: options.scripts,
    bodyClass: options.bodyClass,
    body: html`<header class="bar"><span class="brand" aria-label="Deal Room">◆ Deal Room</span></header>
<main id="main">${main}</main>`,
  });
}

/** A page that says one thing: a link that does not exist, is no longer active, and so on. */
export function messagePage(title: string, detail: string, next?: { href: string; label: string }): string {
  return shell(
    title,
    html`<section class="card message">
  <h1>${title}</h1>
  <p>${detail}</p>
  ${next ? html`<p><a class="button" href="${next.href}">${next.label}</a></p>` : ''}
</section>`,
  );
}

export function gatePage(o: GateOptions): string {
  const problem = o.problem;
  const invalid = (field: 'email' | 'password') => (problem?.field === field ? 'true' : 'false');
  return shell(
    o.roomName,
    html`<section class="card gate">
  <p class="eyebrow">Shared with you</p>
  <h1>${o.roomName}</h1>
  <p class="lead">${o.askEmail ? 'Enter your email to open the documents.' : 'Enter the password to open the documents.'}</p>
  ${problem ? html`<p class="alert" role="alert" id="problem">${problem.message}</p>` : ''}
  <form method="post" action="/v/${o.shortId}" novalidate>
    <input type="hidden" name="token" value="${o.token}">
    ${
      o.askEmail
        ? html`<div class="field">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="email" required value="${o.form?.email ?? ''}"
        aria-invalid="${invalid('email')}"${problem?.field === 'email' ? html` aria-describedby="problem"` : ''}>
    </div>
    <div class="field">
      <label for="name">Name</label>
      <input id="name" name="name" type="text" autocomplete="name" maxlength="200" value="${o.form?.name ?? ''}" aria-describedby="name-hint">
      <p class="hint" id="name-hint">Optional: how the people who shared this will see you.</p>
    </div>`
        : ''
    }
    ${
      o.askPassword
        ? html`<div class="field">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required
        aria-invalid="${invalid('password')}"${problem?.field === 'password' ? html` aria-describedby="problem"` : ''}>
    </div>`
        : ''
    }
    <button type="submit" class="primary">Continue</button>
  </form>
</section>`,
  );
}

export function roomPage(o: {
  shortId: string;
  roomName: string;
  documents: readonly ShownDocument[];
}): string {
  return shell(
    o.roomName,
    html`<section class="room">
  <p class="eyebrow">Deal room</p>
  <h1>${o.roomName}</h1>
  ${
    o.documents.length === 0
      ? html`<p class="empty">There are no documents here yet.</p>`
      : html`<ul class="documents">
    ${o.documents.map(
      (d) =>
        html`<li><a href="/v/${o.shortId}/d/${d.id}"><span class="doc-icon" aria-hidden="true">${iconOf(d)}</span><span class="doc-title">${d.title}</span><span class="doc-meta">${metaOf(d)}</span></a></li>`,
    )}
  </ul>`
  }
</section>`,
  );
}

function iconOf(d: ShownDocument): string {
  if (d.file_type === 'application/pdf') return 'PDF';
  if (d.file_type === 'image/png' || d.file_type === 'image/jpeg') return 'IMG';
  return 'DOC';
}

function metaOf(d: ShownDocument): string {
  if (!d.file_type) return 'No content yet';
  return d.page_count === 1 ? '1 page' : `${d.page_count} pages`;
}

export interface ViewerOptions {
  shortId: string;
  roomName: string;
  document: ShownDocument;
  /** Where the page reports, and the token that lets it; undefined when no view was started. */
  report?: { url: string; token: string } | undefined;
  watermark?: string | undefined;
}

export function viewerPage(o: ViewerOptions): string {
  const d = o.document;
  const base = `/v/${o.shortId}/d/${d.id}`;
  const pages = Array.from({ length: d.file_type ? Math.max(d.page_count, 1) : 0 }, (_, i) => i + 1);
  return shell(
    d.title,
    html`<div class="viewer-head">
  <a class="back" href="/v/${o.shortId}">← ${o.roomName}</a>
  <h1>${d.title}</h1>
  ${d.download_allowed && d.file_type ? html`<a class="button" href="${base}/download">Download</a>` : ''}
</div>
${
  d.file_type
    ? html`<div id="pages" class="pages" data-file="${base}/file" data-type="${d.file_type}"
  data-report="${o.report?.url ?? ''}" data-token="${o.report?.token ?? ''}" data-watermark="${o.watermark ?? ''}">
  ${pages.map(
    (n) =>
      html`<div class="page" data-page="${n}" aria-label="Page ${n}" role="img">${
        d.file_type === 'application/pdf'
          ? html`<p class="page-loading">Page ${n}</p>`
          : html`<img src="${base}/file" alt="${d.title}">`
      }${o.watermark ? html`<div class="watermark" aria-hidden="true">${o.watermark}</div>` : ''}</div>`,
  )}
</div>
<noscript><p class="empty">Turn on JavaScript to read this document.</p></noscript>`
    : html`<p class="empty">This document has no content yet.</p>`
}`,
    { scripts: d.file_type ? ['/assets/viewer.js'] : [], bodyClass: 'reading' },
  );
}

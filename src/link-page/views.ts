import { type Html, html, page } from '../core/html.ts';
import type { ShownDocument, ShownPages } from './repo.ts';

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

/** The gate's code step: the code mailed to the email, and a way to have a new one sent. */
export function codePage(o: {
  shortId: string;
  roomName: string;
  email: string;
  token: string;
  problem?: string | undefined;
  sent?: boolean | undefined;
}): string {
  return shell(
    o.roomName,
    html`<section class="card gate">
  <p class="eyebrow">Check your email</p>
  <h1>${o.roomName}</h1>
  <p class="lead">We sent a six-digit code to <strong>${o.email}</strong>. It works for 10 minutes.</p>
  ${o.problem ? html`<p class="alert" role="alert" id="problem">${o.problem}</p>` : ''}
  ${o.sent ? html`<p class="note" role="status">A new code is on its way.</p>` : ''}
  <form method="post" action="/v/${o.shortId}/verify" novalidate>
    <input type="hidden" name="token" value="${o.token}">
    <div class="field">
      <label for="code">Verification code</label>
      <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}"
        maxlength="6" required aria-invalid="${o.problem ? 'true' : 'false'}"${o.problem ? html` aria-describedby="problem"` : ''}>
    </div>
    <button type="submit" class="primary">Verify</button>
  </form>
  <form method="post" action="/v/${o.shortId}/resend" class="secondary-actions">
    <input type="hidden" name="token" value="${o.token}">
    <button type="submit" class="link-button">Send a new code</button>
    <a href="/v/${o.shortId}?again=1">Use another email</a>
  </form>
</section>`,
  );
}

/** The gate's agreement step: the link's text, accepted with one button. */
export function agreementPage(o: { shortId: string; roomName: string; text: string; token: string }): string {
  return shell(
    o.roomName,
    html`<section class="card gate agreement">
  <p class="eyebrow">Before you continue</p>
  <h1>${o.roomName}</h1>
  <p class="lead">Read and accept this agreement to open the documents.</p>
  <div class="agreement-text" tabindex="0" role="region" aria-label="Agreement">${o.text
    .split(/\n{2,}/)
    .map((paragraph) => html`<p>${paragraph}</p>`)}</div>
  <form method="post" action="/v/${o.shortId}/agree">
    <input type="hidden" name="token" value="${o.token}">
    <button type="submit" class="primary">I agree</button>
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
  /** The document's file as rendered: its pages and each stored page's height at width 1600. */
  pages?: ShownPages | undefined;
  /** Where the page reports, and the token that lets it; undefined when no view was started. */
  report?: { url: string; token: string } | undefined;
}

/**
 * The document viewer: every page an image the service rendered (never the file), stacked
 * and reached by scrolling, page 1 loaded first and the rest as they come near; a header that
 * stays, with the counter, previous and next, jump, zoom and full screen; thumbnails beside
 * the pages on a wide screen. Works without script as a plain column of images.
 */
export function viewerPage(o: ViewerOptions): string {
  const d = o.document;
  const base = `/v/${o.shortId}/d/${d.id}`;
  const shown = o.pages;
  const count = shown?.count ?? 0;
  const fallback = shown?.heights.find((h) => h > 0) ?? 2071;
  const heightOf = (n: number) => (shown?.heights[n - 1] || fallback) as number;
  const numbers = Array.from({ length: count }, (_, i) => i + 1);
  const image = (n: number, width: number) => `${base}/pages/${n}?w=${width}&v=${shown?.version ?? 0}`;
  return shell(
    d.title,
    html`<div class="viewer-head">
  <a class="back" href="/v/${o.shortId}">← ${o.roomName}</a>
  <h1>${d.title}</h1>
  ${
    count > 0
      ? html`<div class="viewer-tools" role="toolbar" aria-label="Pages" aria-controls="pages">
    <button type="button" class="tool" data-go="previous" aria-label="Previous page">‹</button>
    <output class="counter" data-counter aria-live="polite">1 / ${count}</output>
    <button type="button" class="tool" data-go="next" aria-label="Next page">›</button>
    <form class="jump" data-jump>
      <label for="jump-to">Go to page</label>
      <input id="jump-to" name="page" type="number" inputmode="numeric" min="1" max="${count}" required>
      <button type="submit" class="tool">Go</button>
    </form>
    <button type="button" class="tool" data-zoom="-1" aria-label="Zoom out">−</button>
    <button type="button" class="tool" data-zoom="1" aria-label="Zoom in">+</button>
    <button type="button" class="tool" data-fullscreen>Full screen</button>
  </div>`
      : ''
  }
  ${d.download_allowed && d.file_type ? html`<a class="button" href="${base}/download">Download</a>` : ''}
</div>
${
  count > 0
    ? html`<div class="reader" data-reader>
  <nav class="thumbs" aria-label="Thumbnails">
    <ol>${numbers.map(
      (n) =>
        html`<li><a href="#page-${n}" data-thumb="${n}" aria-label="Page ${n}"><img src="${image(n, 240)}" alt="" width="240" height="${Math.round((heightOf(n) * 240) / 1600)}" loading="lazy" decoding="async"></a></li>`,
    )}</ol>
  </nav>
  <div id="pages" class="pages" data-count="${count}"
    data-report="${o.report?.url ?? ''}" data-token="${o.report?.token ?? ''}">
  ${numbers.map(
    (n) =>
      html`<div class="page" id="page-${n}" data-page="${n}"><img src="${image(n, 1600)}" srcset="${image(n, 800)} 800w, ${image(n, 1600)} 1600w" sizes="(max-width: 56rem) 100vw, 52rem" alt="Page ${n}" width="1600" height="${heightOf(n)}" ${n <= 2 ? html`loading="eager" fetchpriority="${n === 1 ? 'high' : 'auto'}"` : html`loading="lazy"`} decoding="async"></div>`,
  )}
  </div>
</div>`
    : d.file_type
      ? html`<p class="empty">This document is being prepared. Try again in a moment.</p>`
      : html`<p class="empty">This document has no content yet.</p>`
}`,
    { scripts: count > 0 ? ['/assets/viewer.js'] : [], bodyClass: 'reading' },
  );
}

import { domainToUnicode } from 'node:url';
import { type Html, html } from '../../core/html.ts';
import { localInput } from '../../core/zones.ts';
import type { DashboardUser } from '../auth.ts';
import { chosen, errorSummary, type FormState, fieldError, typed } from '../forms.ts';
import { actionButton, count, csrfField, dashboardPage, mayChange, notice, table, when } from '../layout.ts';
import type { DocumentListRow, LinkListRow, LinkVisitorRow, RoomRow } from '../repo.ts';
import { roomTabs } from './rooms.ts';

/** The link form's fields, by name, and their labels. */
export const LINK_FIELDS = {
  name: 'Name',
  password: 'Password',
  expiresAt: 'Expires',
  documentIds: 'Documents',
  verifyEmail: 'Verify email',
  allowList: 'Allowed emails and domains',
  blockList: 'Blocked emails and domains',
  agreement: 'Agreement',
};
/** Said wherever a link asks for verified emails that this service cannot mail. */
const CANNOT_VERIFY =
  'This link cannot verify emails: this service is not set up to send email, so nobody can open it.';

const IDS = {
  name: 'link-name',
  password: 'link-password',
  expiresAt: 'link-expiry',
  documentIds: 'docs-chosen',
  verifyEmail: 'verify-email',
  allowList: 'allow-list',
  blockList: 'block-list',
  agreement: 'agreement',
};

export function linkState(link: LinkListRow, now: Date): string {
  if (!link.enabled) return 'deactivated';
  if (link.expires_at && link.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** What keeps a link's documents in: its password, expiry, downloads and watermark, in words. */
function protections(link: LinkListRow, zone: string): string {
  return [
    link.requires_email ? 'Email' : '',
    link.has_password ? 'Password' : '',
    link.expires_at ? `Expires ${when(link.expires_at, zone)}` : '',
    link.allow_download ? 'Downloads allowed' : 'Downloads off',
    link.watermark ? 'Watermark' : '',
    link.verify_email ? 'Verified email' : '',
    link.allow_list.length > 0 ? 'Allow list' : '',
    link.block_list.length > 0 ? 'Block list' : '',
    link.agreement !== null ? 'Agreement' : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** A link's settings form, new or saved, sent back with what was typed (passwords aside). */
export function linkForm(
  user: DashboardUser,
  action: string,
  documents: readonly DocumentListRow[],
  link: LinkListRow | undefined,
  button: string,
  form?: FormState,
  canMail = false,
): Html {
  const picked = form ? chosen(form, 'documentIds') : new Set(link?.document_ids ?? []);
  const some = form ? typed(form, 'documentsMode') === 'chosen' : link ? !link.all_documents : false;
  const box = (field: string, before: boolean) => (form ? typed(form, field) === 'yes' : before);
  const checked = (on: boolean) => (on ? html` checked` : '');
  const name = fieldError(form, 'name', IDS.name);
  const password = fieldError(form, 'password', IDS.password, 'link-password-hint');
  const expiry = fieldError(form, 'expiresAt', IDS.expiresAt, 'link-expiry-hint');
  const docs = fieldError(form, 'documentIds', IDS.documentIds);
  const verify = fieldError(form, 'verifyEmail', IDS.verifyEmail, 'verify-email-hint');
  const allow = fieldError(form, 'allowList', IDS.allowList, 'allow-list-hint');
  const block = fieldError(form, 'blockList', IDS.blockList, 'block-list-hint');
  const agreement = fieldError(form, 'agreement', IDS.agreement, 'agreement-hint');
  const lines = (field: 'allowList' | 'blockList', kept: readonly string[] | undefined) =>
    typed(form, field, (kept ?? []).map(displayEntry).join('\n'));
  const expires = link?.expires_at ? localInput(link.expires_at, user.timezone) : '';
  return html`${errorSummary(form, IDS)}<form method="post" action="${action}" class="stack link-form" novalidate>
  ${csrfField(user)}
  <div class="field"><label for="link-name">Name</label>${name.message}<input id="link-name" name="name" maxlength="200" value="${typed(form, 'name', link?.name ?? '')}"${name.attributes}></div>
  <fieldset><legend>Who may open it</legend>
    <div class="field check"><input id="requires-email" name="requiresEmail" type="checkbox" value="yes"${checked(box('requiresEmail', link?.requires_email ?? true))}><label for="requires-email">Email required</label></div>
    ${
      link
        ? html`<p class="hint">${link.has_password ? 'A password is set (it is never shown).' : 'No password is set.'}</p>
    <div class="field"><label for="password-action">Password setting</label>
      <select id="password-action" name="passwordAction">
        ${['keep', 'set', ...(link.has_password ? ['remove'] : [])].map((v) => html`<option value="${v}"${typed(form, 'passwordAction', 'keep') === v ? html` selected` : ''}>${v === 'keep' ? 'Keep as it is' : v === 'set' ? 'Set or change' : 'Remove the password'}</option>`)}
      </select></div>`
        : ''
    }
    <div class="field"><label for="link-password">Password</label>${password.message}<input id="link-password" name="password" type="password" autocomplete="new-password" maxlength="200"${password.attributes}>
      <p class="hint" id="link-password-hint">${link ? 'At least 8 characters; used when the setting above is “Set or change”.' : 'Optional; at least 8 characters.'}</p></div>
    <div class="field"><label for="link-expiry">Expires (${user.timezone})</label>${expiry.message}<input id="link-expiry" name="expiresAt" type="datetime-local" value="${typed(form, 'expiresAt', expires)}"${expiry.attributes}>
      <p class="hint" id="link-expiry-hint">Empty: never.</p></div>
    <div class="field check"><input id="verify-email" name="verifyEmail" type="checkbox" value="yes"${checked(box('verifyEmail', link?.verify_email ?? false))}${verify.attributes}><label for="verify-email">Verify email</label>
      ${verify.message}<p class="hint" id="verify-email-hint">${
        canMail
          ? 'The gate mails a six-digit code; the email is proved before the room opens.'
          : link?.verify_email
            ? CANNOT_VERIFY
            : 'Needs email, which this service is not set up to send: ask whoever runs it to set that up.'
      }</p></div>
    <div class="field"><label for="allow-list">Allowed emails and domains</label>${allow.message}<textarea id="allow-list" name="allowList" rows="3"${allow.attributes}>${lines('allowList', link?.allow_list)}</textarea>
      <p class="hint" id="allow-list-hint">One a line: name@company.com or @company.com. Empty: any email.</p></div>
    <div class="field"><label for="block-list">Blocked emails and domains</label>${block.message}<textarea id="block-list" name="blockList" rows="3"${block.attributes}>${lines('blockList', link?.block_list)}</textarea>
      <p class="hint" id="block-list-hint">One a line. A listed email never opens the link, even when allowed.</p></div>
    <div class="field"><label for="agreement">Agreement</label>${agreement.message}<textarea id="agreement" name="agreement" rows="4" maxlength="20000"${agreement.attributes}>${typed(form, 'agreement', link?.agreement ?? '')}</textarea>
      <p class="hint" id="agreement-hint">Optional: text the recipient accepts with “I agree” before the room opens.</p></div>
  </fieldset>
  <fieldset><legend>What it shows</legend>
    <div class="field check"><input id="docs-all" name="documentsMode" type="radio" value="all"${checked(!some)}><label for="docs-all">Every published document of the room</label></div>
    <div class="field check"><input id="docs-chosen" name="documentsMode" type="radio" value="chosen"${checked(some)}><label for="docs-chosen">Only these documents:</label></div>
    ${docs.message}
    <ul class="choices">
      ${documents.map(
        (d) =>
          html`<li class="field check"><input id="doc-${d.id}" name="documentIds" type="checkbox" value="${d.id}"${checked(picked.has(d.id))}><label for="doc-${d.id}">${d.display_name ?? d.name}${d.status === 'published' ? '' : ` (${d.status})`}</label></li>`,
      )}
    </ul>
    <div class="field check"><input id="allow-download" name="allowDownload" type="checkbox" value="yes"${checked(box('allowDownload', link?.allow_download ?? true))}><label for="allow-download">Downloads allowed</label></div>
    <div class="field check"><input id="watermark" name="watermark" type="checkbox" value="yes"${checked(box('watermark', link?.watermark ?? false))}><label for="watermark">Watermark</label></div>
  </fieldset>
  <button type="submit" class="primary">${button}</button>
</form>`;
}

/** A kept list entry as a person reads it: an internationalised domain in its own letters. */
function displayEntry(entry: string): string {
  const at = entry.lastIndexOf('@');
  return `${entry.slice(0, at + 1)}${domainToUnicode(entry.slice(at + 1)) || entry.slice(at + 1)}`;
}

/** A room's share links, with their protections, and the form for a new one. */
export function linksView(
  user: DashboardUser,
  room: RoomRow,
  data: {
    links: readonly LinkListRow[];
    documents: readonly DocumentListRow[];
    now: Date;
    url: (l: LinkListRow) => string;
    /** SMTP_URL is set: links may verify emails. */
    canMail: boolean;
  },
  o: { done?: string | undefined; form?: FormState } = {},
): string {
  const { links, documents, now, url } = data;
  const body = html`<div class="page-head"><div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div></div>
${roomTabs(room, 'links')}
${notice(o.done)}
${table({
  caption: 'Share links',
  csv: `/app/rooms/${room.id}/links.csv`,
  head: ['Link', 'Address', 'State', 'Protections', 'Visits', 'Created'],
  numeric: [4],
  empty: 'No links yet.',
  rows: links.map(
    (l) => html`<tr><th scope="row"><a href="/app/links/${l.id}">${l.name}</a></th>
<td><code class="address">${url(l)}</code> <button type="button" class="copy secondary" data-copy="${url(l)}">Copy</button></td>
<td><span class="badge ${linkState(l, now)}">${linkState(l, now)}</span></td><td>${protections(l, user.timezone)}</td><td class="num">${count(l.total_clicks)}</td><td>${when(l.created_at, user.timezone)}</td></tr>`,
  ),
})}
${mayChange(user) ? html`<section class="card"><h2>New link</h2>${linkForm(user, `/app/rooms/${room.id}/links`, documents, undefined, 'Create link', o.form, data.canMail)}</section>` : ''}`;
  return dashboardPage(user, {
    title: `${room.name}: links`,
    section: 'rooms',
    crumbs: [['/app/rooms', 'Rooms']],
    body,
  });
}

/** One link: its address, figures, the people who came through it, and its settings. */
export function linkView(
  user: DashboardUser,
  room: RoomRow,
  link: LinkListRow,
  data: {
    documents: readonly DocumentListRow[];
    visitors: readonly LinkVisitorRow[];
    now: Date;
    url: string;
    canMail: boolean;
  },
  o: { done?: string | undefined; form?: FormState } = {},
): string {
  const { now, url } = data;
  const body = html`<div class="page-head"><div><p class="eyebrow">Share link</p><h1>${link.name}</h1></div>
<span class="badge ${linkState(link, now)}">${linkState(link, now)}</span></div>
${notice(o.done)}
<section class="card">
  <p>Send this address: <code class="address">${url}</code> <button type="button" class="copy secondary" data-copy="${url}">Copy</button></p>
  <p>${count(link.total_clicks)} visit${link.total_clicks === 1 ? '' : 's'} · created ${when(link.created_at, user.timezone)} · ${protections(link, user.timezone)}</p>
  ${
    link.verify_email && !data.canMail
      ? html`<p class="alert" role="alert">${CANNOT_VERIFY} Turn “Verify email” off, or ask whoever runs the service to set up email.</p>`
      : ''
  }
</section>
${table({
  caption: 'Who came through this link',
  head: ['Viewer', 'Visits', 'Last visit'],
  numeric: [1],
  empty: 'Nobody yet.',
  rows: data.visitors.map(
    (v) =>
      html`<tr><th scope="row"><a href="/app/viewers/${v.id}">${v.email ?? 'Anonymous viewer'}</a>${v.name ? html` <span class="muted">${v.name}</span>` : ''}${v.internal ? html` <span class="badge internal">Internal</span>` : ''}</th><td class="num">${count(v.visits)}</td><td>${when(v.last_at, user.timezone)}</td></tr>`,
  ),
})}
${
  mayChange(user)
    ? html`<section class="card"><h2>Settings</h2>${linkForm(user, `/app/links/${link.id}`, data.documents, link, 'Save link', o.form, data.canMail)}
<div class="actions">${link.enabled ? actionButton(user, `/app/links/${link.id}/deactivate`, 'Deactivate') : ''}${actionButton(user, `/app/links/${link.id}/delete`, 'Delete link', { danger: true })}</div></section>`
    : ''
}`;
  return dashboardPage(user, {
    title: link.name,
    section: 'rooms',
    crumbs: [
      ['/app/rooms', 'Rooms'],
      [`/app/rooms/${room.id}/links`, room.name],
    ],
    body,
  });
}

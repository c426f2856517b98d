import { type Html, html } from '../core/html.ts';
import { createLink, deactivateLink, deleteLink, updateLink } from '../links/commands.ts';
import type { DashboardUser } from './auth.ts';
import {
  asUser,
  doneOf,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
  withUser,
} from './context.ts';
import { sendCsv } from './csv.ts';
import { DashboardError, notFound } from './errors.ts';
import { type Form, formOf } from './forms.ts';
import { actionButton, count, csrfField, dashboardPage, mayChange, notice, table, when } from './layout.ts';
import { type DocumentListRow, type LinkListRow, roomDocuments, roomLinks, teamLink } from './repo.ts';
import { roomOf, roomTabs } from './rooms.ts';

function linkState(link: LinkListRow, now: Date): string {
  if (!link.enabled) return 'deactivated';
  if (link.expires_at && link.expires_at.getTime() <= now.getTime()) return 'expired';
  return 'active';
}

/** The settings a link form sends, checked; `password` undefined keeps the one set. */
function linkSettings(form: Form, documents: DocumentListRow[], editing: boolean) {
  const name = form.get('name');
  if (name.length === 0 || name.length > 200) {
    throw new DashboardError(400, 'Check what you entered', 'Give the link a name of 1 to 200 characters.');
  }
  const expiry = form.get('expiresAt');
  let expiresAt: Date | null = null;
  if (expiry) {
    const at = new Date(/Z|[+-]\d\d:\d\d$/.test(expiry) ? expiry : `${expiry}Z`);
    if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 2000 || at.getUTCFullYear() > 9999) {
      throw new DashboardError(400, 'Check what you entered', 'Give the expiry as a date and time (UTC).');
    }
    expiresAt = at;
  }
  const chosen = form.all('documentIds');
  const known = new Set(documents.map((d) => d.id));
  if (chosen.some((id) => !known.has(id)))
    throw new DashboardError(400, 'Check what you entered', 'Choose documents of this room.');
  const passwordAction = form.get('passwordAction');
  const password = form.text('password');
  let passwordChange: string | null | undefined;
  if (!editing || passwordAction === 'set') {
    if (password.length > 200)
      throw new DashboardError(400, 'Check what you entered', 'Use a password of at most 200 characters.');
    passwordChange = password === '' ? (editing ? undefined : null) : password;
  } else if (passwordAction === 'remove') {
    passwordChange = null;
  }
  return {
    name,
    requiresEmail: form.get('requiresEmail') === 'yes',
    allowDownload: form.get('allowDownload') === 'yes',
    watermark: form.get('watermark') === 'yes',
    expiresAt,
    documentIds: form.get('documentsMode') === 'chosen' ? chosen : null,
    ...(passwordChange === undefined ? {} : { password: passwordChange }),
  };
}

function linkForm(
  user: DashboardUser,
  action: string,
  documents: DocumentListRow[],
  link: LinkListRow | undefined,
  button: string,
): Html {
  const chosen = new Set(link?.document_ids ?? []);
  const some = link ? !link.all_documents : false;
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<form method="post" action="${action}" class="stack link-form">
  ${csrfField(user)}
  <div class="field"><label for="link-name">Name</label><input id="link-name" name="name" required maxlength="200" value="${link?.name ?? ''}"></div>
  <fieldset><legend>Who may open it</legend>
    <div class="field check"><input id="requires-email" name="requiresEmail" type="checkbox" value="yes"${checked(link?.requires_email ?? true)}><label for="requires-email">Email required</label></div>
    ${
      link
        ? html`<p class="hint">${link.has_password ? 'A password is set (it is never shown).' : 'No password is set.'}</p>
    <div class="field"><label for="password-action">Password setting</label>
      <select id="password-action" name="passwordAction">
        <option value="keep">Keep as it is</option>
        <option value="set">Set or change</option>
        ${link.has_password ? html`<option value="remove">Remove the password</option>` : ''}
      </select></div>`
        : ''
    }
    <div class="field"><label for="link-password">Password</label><input id="link-password" name="password" type="password" autocomplete="new-password" maxlength="200" aria-describedby="link-password-hint">
      <p class="hint" id="link-password-hint">${link ? 'Used when the setting above is “Set or change”.' : 'Optional.'}</p></div>
    <div class="field"><label for="link-expiry">Expires (UTC)</label><input id="link-expiry" name="expiresAt" type="datetime-local" value="${link?.expires_at ? link.expires_at.toISOString().slice(0, 16) : ''}" aria-describedby="link-expiry-hint">
      <p class="hint" id="link-expiry-hint">Empty: never.</p></div>
  </fieldset>
  <fieldset><legend>What it shows</legend>
    <div class="field check"><input id="docs-all" name="documentsMode" type="radio" value="all"${checked(!some)}><label for="docs-all">Every published document of the room</label></div>
    <div class="field check"><input id="docs-chosen" name="documentsMode" type="radio" value="chosen"${checked(some)}><label for="docs-chosen">Only these documents:</label></div>
    <ul class="choices">
      ${documents.map(
        (d) =>
          html`<li class="field check"><input id="doc-${d.id}" name="documentIds" type="checkbox" value="${d.id}"${checked(chosen.has(d.id))}><label for="doc-${d.id}">${d.display_name ?? d.name}${d.status === 'published' ? '' : ` (${d.status})`}</label></li>`,
      )}
    </ul>
    <div class="field check"><input id="allow-download" name="allowDownload" type="checkbox" value="yes"${checked(link?.allow_download ?? true)}><label for="allow-download">Downloads allowed</label></div>
    <div class="field check"><input id="watermark" name="watermark" type="checkbox" value="yes"${checked(link?.watermark ?? false)}><label for="watermark">Watermark</label></div>
  </fieldset>
  <button type="submit" class="primary">${button}</button>
</form>`;
}

export const linkRoutes: Route = (app, deps) => {
  const linkOf = async (user: DashboardUser, id: string) => {
    const link = await teamLink(deps.db, user.teamId, id);
    if (!link) throw notFound();
    return link;
  };
  const url = (link: LinkListRow) => `${deps.appUrl}/v/${link.short_id}`;

  app.get(
    '/rooms/:id/links',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const [links, documents] = await Promise.all([
        roomLinks(deps.db, room.id),
        roomDocuments(deps.db, room.id),
      ]);
      const now = deps.clock.now();
      const body = html`<div class="page-head"><div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div></div>
${roomTabs(room, 'links')}
${notice(doneOf(request))}
${table({
  caption: 'Share links',
  csv: `/app/rooms/${room.id}/links.csv`,
  head: ['Link', 'Address', 'State', 'Visits', 'Created'],
  numeric: [3],
  empty: 'No links yet.',
  rows: links.map(
    (l) => html`<tr><th scope="row"><a href="/app/links/${l.id}">${l.name}</a></th>
<td><code class="address">${url(l)}</code> <button type="button" class="copy secondary" data-copy="${url(l)}">Copy</button></td>
<td><span class="badge ${linkState(l, now)}">${linkState(l, now)}</span></td><td class="num">${count(l.total_clicks)}</td><td>${when(l.created_at)}</td></tr>`,
  ),
})}
${mayChange(user) ? html`<section class="card"><h2>New link</h2>${linkForm(user, `/app/rooms/${room.id}/links`, documents, undefined, 'Create link')}</section>` : ''}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: `${room.name}: links`,
          section: 'rooms',
          crumbs: [['/app/rooms', 'Rooms']],
          body,
        }),
      );
    }),
  );

  app.get(
    '/rooms/:id/links.csv',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const now = deps.clock.now();
      const links = await roomLinks(deps.db, room.id);
      return sendCsv(
        reply,
        `${room.name} links`,
        [
          'id',
          'name',
          'url',
          'state',
          'requiresEmail',
          'hasPassword',
          'expiresAt',
          'allowDownload',
          'watermark',
          'visits',
          'createdAt',
        ],
        links.map((l) => [
          l.id,
          l.name,
          url(l),
          linkState(l, now),
          l.requires_email,
          l.has_password,
          l.expires_at?.toISOString() ?? '',
          l.allow_download,
          l.watermark,
          l.total_clicks,
          l.created_at.toISOString(),
        ]),
      );
    }),
  );

  app.post(
    '/rooms/:id/links',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const settings = linkSettings(formOf(request.body), await roomDocuments(deps.db, room.id), false);
      const link = await asUser(deps, user, { action: 'link.created', subject: { type: 'link' } }, (ctx) =>
        createLink(ctx, room.id, settings),
      );
      return redirect(reply, `/app/links/${link.id}?done=link-created`);
    }),
  );

  app.get(
    '/links/:id',
    withUser(async (request, reply, user) => {
      const link = await linkOf(user, idParam(request));
      const room = await roomOf(deps, user, link.deal_room_id);
      const documents = await roomDocuments(deps.db, room.id);
      const now = deps.clock.now();
      const body = html`<div class="page-head"><div><p class="eyebrow">Share link</p><h1>${link.name}</h1></div>
<span class="badge ${linkState(link, now)}">${linkState(link, now)}</span></div>
${notice(doneOf(request))}
<section class="card">
  <p>Send this address: <code class="address">${url(link)}</code> <button type="button" class="copy secondary" data-copy="${url(link)}">Copy</button></p>
  <p>${count(link.total_clicks)} visit${link.total_clicks === 1 ? '' : 's'} · created ${when(link.created_at)}</p>
</section>
${
  mayChange(user)
    ? html`<section class="card"><h2>Settings</h2>${linkForm(user, `/app/links/${link.id}`, documents, link, 'Save link')}
<div class="actions">${link.enabled ? actionButton(user, `/app/links/${link.id}/deactivate`, 'Deactivate') : ''}${actionButton(user, `/app/links/${link.id}/delete`, 'Delete link', { danger: true })}</div></section>`
    : ''
}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: link.name,
          section: 'rooms',
          crumbs: [
            ['/app/rooms', 'Rooms'],
            [`/app/rooms/${room.id}/links`, room.name],
          ],
          body,
        }),
      );
    }),
  );

  app.post(
    '/links/:id',
    withUser(async (request, reply, user) => {
      const link = await linkOf(user, idParam(request));
      const settings = linkSettings(
        formOf(request.body),
        await roomDocuments(deps.db, link.deal_room_id),
        true,
      );
      await asUser(
        deps,
        user,
        { action: 'link.updated', subject: { type: 'link', id: link.id }, before: link },
        (ctx) => updateLink(ctx, link.id, settings),
      );
      return redirect(reply, `/app/links/${link.id}?done=link-saved`);
    }),
  );

  subjectAction(app, deps, '/links/:id/deactivate', {
    find: linkOf,
    type: 'link',
    action: 'link.deactivated',
    before: (link) => ({ enabled: link.enabled }),
    run: (ctx, link) => deactivateLink(ctx, link.id),
    next: (link) => `/app/links/${link.id}?done=link-deactivated`,
  });

  subjectAction(app, deps, '/links/:id/delete', {
    find: linkOf,
    type: 'link',
    action: 'link.deleted',
    before: (link) => link,
    after: () => null,
    run: (ctx, link) => deleteLink(ctx, link.id),
    next: (link) => `/app/rooms/${link.deal_room_id}/links?done=link-deleted`,
  });
};

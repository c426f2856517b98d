import { entryKeys } from '../core/email-entries.ts';
import { FormBody, IdParams } from '../core/schemas.ts';
import { fromLocal } from '../core/zones.ts';
import { createLink, deactivateLink, deleteLink, updateLink } from '../links/commands.ts';
import { LinkBody, LinkPatch } from '../links/schemas.ts';
import type { DashboardUser } from './auth.ts';
import { asUser, DONE, htmlPage, idParam, type Route, redirect, subjectAction } from './context.ts';
import { sendCsv } from './csv.ts';
import { notFound } from './errors.ts';
import { checkForm, DoneQuery, type FormState, formOf, refusedField } from './forms.ts';
import {
  type DocumentListRow,
  type LinkListRow,
  linkVisitors,
  roomDocuments,
  roomLinks,
  teamLink,
} from './repo.ts';
import { roomOf } from './rooms.ts';
import { LINK_FIELDS, linkState, linksView, linkView } from './views/links.ts';

/**
 * A link form read into the change the management API takes (LinkBody, or LinkPatch when
 * saving one): checkboxes as booleans, the expiry typed in the reader's zone as an instant, the documents
 * chosen (of this room) or null for all, the password as its setting says. Checked by that
 * schema; what it refuses goes back to the form.
 */
function readLinkForm(
  body: unknown,
  documents: readonly DocumentListRow[],
  editing: boolean,
  canMail: boolean,
  zone: string,
) {
  const form = formOf(body);
  const fields = [
    'name',
    'requiresEmail',
    'passwordAction',
    'expiresAt',
    'documentsMode',
    'allowDownload',
    'watermark',
    'verifyEmail',
    'allowList',
    'blockList',
    'agreement',
  ];
  const values: FormState['values'] = Object.fromEntries(fields.map((f) => [f, form.get(f)]));
  values.documentIds = form.all('documentIds');
  const errors: FormState['errors'] = [];
  const input: Record<string, unknown> = {
    name: form.get('name'),
    requiresEmail: form.get('requiresEmail') === 'yes',
    allowDownload: form.get('allowDownload') === 'yes',
    watermark: form.get('watermark') === 'yes',
    expiresAt: null,
    documentIds: form.get('documentsMode') === 'chosen' ? form.all('documentIds') : null,
    verifyEmail: form.get('verifyEmail') === 'yes',
    agreement: form.text('agreement').trim() || null,
  };
  if (input.verifyEmail && !canMail) {
    errors.push({
      field: 'verifyEmail',
      message: 'Emails cannot be verified: this service is not set up to send email',
    });
  }
  for (const field of ['allowList', 'blockList'] as const) {
    const entries = form
      .text(field)
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean);
    const kept = entryKeys(entries);
    if (kept.ok) input[field] = entries;
    else errors.push({ field, message: `Line ${kept.index + 1} is not an email or @domain: ${kept.entry}` });
  }
  const expiry = form.get('expiresAt');
  if (expiry) {
    // Typed in the reader's zone (a datetime-local input), or as an instant with its offset.
    const at = /Z|[+-]\d\d:\d\d$/.test(expiry) ? new Date(expiry) : fromLocal(expiry, zone);
    if (!at || Number.isNaN(at.getTime()) || at.getUTCFullYear() < 2000 || at.getUTCFullYear() > 9999) {
      errors.push({ field: 'expiresAt', message: `Give the expiry as a date and time (${zone})` });
    } else input.expiresAt = at.toISOString();
  }
  const known = new Set(documents.map((d) => d.id));
  if (form.all('documentIds').some((id) => !known.has(id))) {
    errors.push({ field: 'documentIds', message: 'Choose documents of this room' });
  }
  const password = form.text('password');
  const action = editing ? form.get('passwordAction') : 'set';
  if (action === 'set' && password !== '') input.password = password;
  else if (action === 'remove' || (!editing && password === '')) input.password = null;
  const checked = checkForm(editing ? LinkPatch : LinkBody, input, { values, errors }, LINK_FIELDS);
  if (!checked.ok) return checked;
  const { expiresAt, ...settings } = checked.value;
  return {
    ok: true as const,
    value: { ...settings, name: checked.value.name ?? '', expiresAt: expiresAt ? new Date(expiresAt) : null },
  };
}

export const linkRoutes: Route = (app, deps) => {
  const linkOf = async (user: DashboardUser, id: string) => {
    const link = await teamLink(deps.db, user.teamId, id);
    if (!link) throw notFound();
    return link;
  };
  const url = (link: LinkListRow) => `${deps.appUrl}/v/${link.short_id}`;
  const canMail = deps.mailer !== undefined;
  /** A link form of the room as this user sent it: a new link's, or `editing` a stored one's. */
  const linkFormOf = async (body: unknown, user: DashboardUser, roomId: string, editing: boolean) =>
    readLinkForm(body, await roomDocuments(deps.db, user.teamId, roomId), editing, canMail, user.timezone);
  const listPage = async (
    user: DashboardUser,
    roomId: string,
    o: { done?: string | undefined; form?: FormState },
  ) => {
    const room = await roomOf(deps, user, roomId);
    const [links, documents] = await Promise.all([
      roomLinks(deps.db, user.teamId, room.id),
      roomDocuments(deps.db, user.teamId, room.id),
    ]);
    return linksView(user, room, { links, documents, now: deps.clock.now(), url, canMail }, o);
  };
  const linkPage = async (
    user: DashboardUser,
    link: LinkListRow & { deal_room_id: string },
    o: { done?: string | undefined; form?: FormState },
  ) => {
    const room = await roomOf(deps, user, link.deal_room_id);
    const [documents, visitors] = await Promise.all([
      roomDocuments(deps.db, user.teamId, room.id),
      linkVisitors(deps.db, user.teamId, link.id, 50),
    ]);
    return linkView(
      user,
      room,
      link,
      { documents, visitors, now: deps.clock.now(), url: url(link), canMail },
      o,
    );
  };

  app.get(
    '/rooms/:id/links',
    { schema: { params: IdParams, querystring: DoneQuery } },
    async (request, reply) =>
      htmlPage(
        reply,
        await listPage(request.user, idParam(request), { done: DONE[request.query.done ?? ''] }),
      ),
  );

  app.get('/rooms/:id/links.csv', { schema: { params: IdParams } }, async (request, reply) => {
    const room = await roomOf(deps, request.user, idParam(request));
    const now = deps.clock.now();
    const links = await roomLinks(deps.db, request.user.teamId, room.id);
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
  });

  app.post('/rooms/:id/links', { schema: { params: IdParams, body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const room = await roomOf(deps, user, idParam(request));
    const sentBack = async (form: FormState) => htmlPage(reply, await listPage(user, room.id, { form }), 400);
    const form = await linkFormOf(request.body, user, room.id, false);
    if (!form.ok) return sentBack(form.state);
    const link = await asUser(deps, user, { action: 'link.created', subject: { type: 'link' } }, (ctx) =>
      createLink(ctx, room.id, form.value),
    ).catch((err) => refusedField(err, request.body, LINK_FIELDS));
    if ('errors' in link) return sentBack(link);
    return redirect(reply, `/app/links/${link.id}?done=link-created`);
  });

  app.get('/links/:id', { schema: { params: IdParams, querystring: DoneQuery } }, async (request, reply) => {
    const link = await linkOf(request.user, idParam(request));
    return htmlPage(reply, await linkPage(request.user, link, { done: DONE[request.query.done ?? ''] }));
  });

  app.post('/links/:id', { schema: { params: IdParams, body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const link = await linkOf(user, idParam(request));
    const sentBack = async (form: FormState) => htmlPage(reply, await linkPage(user, link, { form }), 400);
    const form = await linkFormOf(request.body, user, link.deal_room_id, true);
    if (!form.ok) return sentBack(form.state);
    const saved = await asUser(
      deps,
      user,
      { action: 'link.updated', subject: { type: 'link', id: link.id }, before: link },
      (ctx) => updateLink(ctx, link.id, form.value),
    ).catch((err) => refusedField(err, request.body, LINK_FIELDS));
    if ('errors' in saved) return sentBack(saved);
    return redirect(reply, `/app/links/${link.id}?done=link-saved`);
  });

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

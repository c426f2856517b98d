import multipart from '@fastify/multipart';
import { PERIODS, type Period } from '../analytics/schemas.ts';
import { type Html, html } from '../core/html.ts';
import { unstorableTextAt } from '../core/text.ts';
import {
  createDocument,
  deleteDocument,
  type ManagedDocument,
  setDocumentPublished,
  updateDocument,
} from '../documents/commands.ts';
import { fileTooLarge, type ReceivedFile, receiveFile } from '../documents/files.ts';
import { pageFigures } from '../documents/pages.ts';
import { checkCsrf, type DashboardUser } from './auth.ts';
import {
  asPage,
  asUser,
  type DashboardDeps,
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
import { formOf } from './forms.ts';
import {
  actionButton,
  count,
  csrfField,
  dashboardPage,
  duration,
  mayChange,
  notice,
  table,
} from './layout.ts';
import { type DocumentListRow, roomDocuments, teamDocument } from './repo.ts';
import { roomOf, roomTabs } from './rooms.ts';

const OVERRIDES = { follow: null, always: true, never: false } as const;
type Override = keyof typeof OVERRIDES;
const overrideOf = (value: boolean | null): Override =>
  value === null ? 'follow' : value ? 'always' : 'never';
const OVERRIDE_LABELS: Record<Override, string> = {
  follow: 'Follow the link',
  always: 'Always downloadable',
  never: 'Never downloadable',
};

function title(d: { name: string; display_name: string | null }): string {
  return d.display_name ?? d.name;
}

function fileMeta(d: DocumentListRow): string {
  if (!d.file_type) return 'No file';
  const kind = d.file_type === 'application/pdf' ? 'PDF' : d.file_type === 'image/png' ? 'PNG' : 'JPEG';
  return `${kind}, ${d.page_count === 1 ? '1 page' : `${d.page_count} pages`}, ${megabytes(d.size_bytes ?? 0)}`;
}

const megabytes = (bytes: number) =>
  bytes < 1024 * 1024
    ? `${Math.max(1, Math.round(bytes / 1024))} KB`
    : `${(bytes / 1024 / 1024).toFixed(1)} MB`;

async function documentOf(deps: DashboardDeps, user: DashboardUser, id: string) {
  const document = await teamDocument(deps.db, user.teamId, id);
  if (!document) throw notFound();
  return document;
}

export const documentRoutes: Route = (app, deps) => {
  app.get(
    '/rooms/:id/documents',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const documents = await roomDocuments(deps.db, room.id);
      const body = html`<div class="page-head"><div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div></div>
${roomTabs(room, 'documents')}
${notice(doneOf(request))}
${
  mayChange(user)
    ? html`<form method="post" action="/app/rooms/${room.id}/documents" enctype="multipart/form-data" class="card upload" data-upload>
  ${csrfField(user)}
  <h2>Add a document</h2>
  <div class="row-form">
    <div class="field grow"><label for="file">File</label>
      <input id="file" name="file" type="file" required accept="application/pdf,image/png,image/jpeg" aria-describedby="file-hint">
      <p class="hint" id="file-hint">PDF, PNG or JPEG, up to ${megabytes(deps.fileMaxBytes)}.</p></div>
    <div class="field grow"><label for="doc-name">Name</label>
      <input id="doc-name" name="name" maxlength="200" aria-describedby="doc-name-hint">
      <p class="hint" id="doc-name-hint">Optional: the file's name when empty.</p></div>
    <div class="field check"><input id="publish" name="publish" type="checkbox" value="yes" checked><label for="publish">Publish now</label></div>
    <button type="submit" class="primary">Upload</button>
  </div>
  <progress hidden max="100" value="0" aria-label="Upload progress"></progress>
</form>`
    : ''
}
${table({
  caption: 'Documents, in the order links show them',
  csv: `/app/rooms/${room.id}/documents.csv`,
  head: ['Document', 'Status', 'File', 'Views', 'Downloads', ...(mayChange(user) ? ['Actions'] : [])],
  numeric: [3],
  empty: 'No documents yet.',
  rows: documents.map(
    (d, i) => html`<tr><th scope="row"><a href="/app/documents/${d.id}">${title(d)}</a></th>
<td><span class="badge ${d.status}">${d.status}</span></td><td>${fileMeta(d)}</td><td class="num">${count(d.total_views)}</td>
<td>${OVERRIDE_LABELS[overrideOf(d.download_override)]}</td>
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
})}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: `${room.name}: documents`,
          section: 'rooms',
          crumbs: [['/app/rooms', 'Rooms']],
          body,
        }),
      );
    }),
  );

  app.get(
    '/rooms/:id/documents.csv',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const documents = await roomDocuments(deps.db, room.id);
      return sendCsv(
        reply,
        `${room.name} documents`,
        [
          'id',
          'name',
          'displayName',
          'status',
          'position',
          'pageCount',
          'fileType',
          'sizeBytes',
          'views',
          'download',
        ],
        documents.map((d) => [
          d.id,
          d.name,
          d.display_name ?? '',
          d.status,
          d.position,
          d.page_count,
          d.file_type ?? '',
          d.size_bytes ?? '',
          d.total_views,
          overrideOf(d.download_override),
        ]),
      );
    }),
  );

  // The upload: multipart, the CSRF token first, then the file, streamed to a checked
  // temporary file (415/413 before anything is written), then one transaction.
  app.register(async (uploads) => {
    await uploads.register(multipart, {
      limits: { fileSize: deps.fileMaxBytes + 1, files: 1, fields: 8, fieldSize: 4096, parts: 10 },
    });
    uploads.post(
      '/rooms/:id/documents',
      { bodyLimit: Number.MAX_SAFE_INTEGER, config: { csrfInParts: true } },
      withUser(async (request, reply, user) => {
        const room = await roomOf(deps, user, idParam(request));
        if (!request.isMultipart()) {
          throw new DashboardError(400, 'Choose a file to upload', 'The form must send a file.');
        }
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > deps.fileMaxBytes + 64 * 1024) {
          throw asPage(fileTooLarge(deps.fileMaxBytes));
        }
        const fields: Record<string, string> = {};
        let received: { file: ReceivedFile; filename: string } | undefined;
        try {
          for await (const part of request.parts()) {
            if (part.type === 'field') {
              fields[part.fieldname] = String(part.value);
              continue;
            }
            // Nothing is read from the file before the form is known to be this session's.
            checkCsrf(request, user, fields);
            if (received || part.fieldname !== 'file') {
              part.file.resume();
              continue;
            }
            received = { file: await receiveFile(part.file, deps.fileMaxBytes), filename: part.filename };
          }
          if (!received) {
            checkCsrf(request, user, fields);
            throw new DashboardError(400, 'Choose a file to upload', 'No file was sent.');
          }
          const name = (fields.name ?? '').trim() || received.filename.trim() || 'Untitled document';
          if (unstorableTextAt(name) !== undefined) {
            throw new DashboardError(
              400,
              'Check what you entered',
              'The name holds a character that cannot be stored.',
            );
          }
          if (name.length > 200)
            throw new DashboardError(400, 'Check what you entered', 'Give a name of 1 to 200 characters.');
          const file = received.file;
          const document = await asUser(
            deps,
            user,
            { action: 'document.created', subject: { type: 'document' }, after: withFile(file) },
            (ctx) =>
              createDocument(
                ctx,
                room.id,
                { name, status: fields.publish === 'yes' ? 'published' : 'draft', position: 1_000_000 },
                file,
              ),
          );
          if (request.headers.accept?.includes('application/json'))
            return reply.send({ data: { id: document.id } });
          return redirect(reply, `/app/rooms/${room.id}/documents?done=uploaded`);
        } catch (err) {
          throw asPage(err);
        } finally {
          await received?.file.discard();
        }
      }),
    );
  });

  app.get(
    '/documents/:id',
    withUser(async (request, reply, user) => {
      const document = await documentOf(deps, user, idParam(request));
      const query = request.query as Record<string, unknown>;
      const period: Period = PERIODS.includes(query.period as Period) ? (query.period as Period) : '30d';
      const figures = await pageFigures(deps.db, document.id, period, deps.clock.now());
      if (!figures) throw notFound();
      const reach = figures.pages.map((p) =>
        figures.views > 0 ? Math.round((p.views / figures.views) * 100) : 0,
      );
      const body = html`<div class="page-head"><div><p class="eyebrow">Document</p><h1>${title(document)}</h1></div>
<span class="badge ${document.status}">${document.status}</span></div>
${notice(doneOf(request))}
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
${mayChange(user) ? documentSettings(user, document) : ''}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: title(document),
          section: 'rooms',
          crumbs: [
            ['/app/rooms', 'Rooms'],
            [`/app/rooms/${document.deal_room_id}/documents`, document.room_name],
          ],
          body,
          scripts: ['/assets/chart.umd.min.js'],
        }),
      );
    }),
  );

  app.get(
    '/documents/:id/pages.csv',
    withUser(async (request, reply, user) => {
      const document = await documentOf(deps, user, idParam(request));
      const query = request.query as Record<string, unknown>;
      const period: Period = PERIODS.includes(query.period as Period) ? (query.period as Period) : '30d';
      const figures = await pageFigures(deps.db, document.id, period, deps.clock.now());
      if (!figures) throw notFound();
      return sendCsv(
        reply,
        `${title(document)} pages ${period}`,
        ['documentId', 'period', 'page', 'views', 'activeSeconds', 'avgActiveSeconds'],
        figures.pages.map((p) => [document.id, period, p.page, p.views, p.activeSeconds, p.avgActiveSeconds]),
      );
    }),
  );

  app.post(
    '/documents/:id',
    withUser(async (request, reply, user) => {
      const document = await documentOf(deps, user, idParam(request));
      const form = formOf(request.body);
      const name = form.get('name');
      const displayName = form.get('displayName');
      const override = form.get('download') as Override;
      if (name.length === 0 || name.length > 200 || displayName.length > 300) {
        throw new DashboardError(400, 'Check what you entered', 'Give a name of 1 to 200 characters.');
      }
      if (!(override in OVERRIDES))
        throw new DashboardError(400, 'Check what you entered', 'Choose a download setting.');
      await asUser(
        deps,
        user,
        {
          action: 'document.updated',
          subject: { type: 'document', id: document.id },
          before: {
            name: document.name,
            displayName: document.display_name,
            downloadOverride: document.download_override,
          },
        },
        (ctx) =>
          updateDocument(ctx, document.id, {
            name,
            displayName: displayName || null,
            downloadOverride: OVERRIDES[override],
          }),
      );
      return redirect(reply, `/app/documents/${document.id}?done=document-saved`);
    }),
  );

  const findDocument = (user: DashboardUser, id: string) => documentOf(deps, user, id);
  for (const [action, published] of [
    ['publish', true],
    ['unpublish', false],
  ] as const) {
    subjectAction(app, deps, `/documents/:id/${action}`, {
      find: findDocument,
      type: 'document',
      action: `document.${action}ed`,
      before: (document) => ({ status: document.status }),
      run: (ctx, document) => setDocumentPublished(ctx, document.id, published),
      next: (document) => `/app/rooms/${document.deal_room_id}/documents?done=document-saved`,
    });
  }

  app.post(
    '/documents/:id/move',
    withUser(async (request, reply, user) => {
      const document = await documentOf(deps, user, idParam(request));
      const direction = formOf(request.body).get('direction');
      const documents = await roomDocuments(deps.db, document.deal_room_id);
      const at = documents.findIndex((d) => d.id === document.id);
      const other = documents[direction === 'up' ? at - 1 : at + 1];
      if (other) {
        // Positions become 0, 1, 2... in the new order: each changed document is one update.
        const order = documents.map((d) => d.id);
        const swapped = order.indexOf(other.id);
        [order[at], order[swapped]] = [order[swapped] as string, order[at] as string];
        for (const [position, id] of order.entries()) {
          const current = documents.find((d) => d.id === id);
          if (!current || current.position === position) continue;
          await asUser(
            deps,
            user,
            {
              action: 'document.updated',
              subject: { type: 'document', id },
              before: { position: current.position },
            },
            (ctx) => updateDocument(ctx, id, { position }),
          );
        }
      }
      return redirect(reply, `/app/rooms/${document.deal_room_id}/documents?done=document-saved`);
    }),
  );

  subjectAction(app, deps, '/documents/:id/delete', {
    find: findDocument,
    type: 'document',
    action: 'document.deleted',
    before: (document) => ({ name: document.name, status: document.status, pageCount: document.page_count }),
    after: () => null,
    run: (ctx, document) => deleteDocument(ctx, document.id),
    next: (document) => `/app/rooms/${document.deal_room_id}/documents?done=document-deleted`,
  });
};

/** What the audit log keeps of a document created with a file: the document and the file's facts. */
function withFile(file: ReceivedFile) {
  return (document: ManagedDocument) => ({
    ...document,
    file: { type: file.type, sizeBytes: file.sizeBytes, sha256: file.sha256 },
  });
}

function documentSettings(user: DashboardUser, document: DocumentListRow & { deal_room_id: string }): Html {
  const current = overrideOf(document.download_override);
  return html`<section class="card">
  <h2>Document settings</h2>
  <form method="post" action="/app/documents/${document.id}" class="stack">
    ${csrfField(user)}
    <div class="field"><label for="doc-name">Name</label><input id="doc-name" name="name" required maxlength="200" value="${document.name}"></div>
    <div class="field"><label for="doc-display">Display name</label><input id="doc-display" name="displayName" maxlength="300" value="${document.display_name ?? ''}" aria-describedby="doc-display-hint">
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

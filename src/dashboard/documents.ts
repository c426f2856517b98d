import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { FastifyRequest } from 'fastify';
import type { Period } from '../core/period.ts';
import { IdParams } from '../core/schemas.ts';
import { unstorableTextAt } from '../core/text.ts';
import {
  createDocument,
  type DocumentMove,
  deleteDocument,
  type ManagedDocument,
  moveDocument,
  setDocumentPublished,
  storeDocumentFile,
  updateDocument,
} from '../documents/commands.ts';
import { fileTooLarge, type ReceivedFile, receiveFile } from '../documents/files.ts';
import { pageFigures } from '../documents/pages.ts';
import { DocumentBody, DocumentPatch } from '../documents/schemas.ts';
import { checkCsrf, type DashboardUser } from './auth.ts';
import {
  asPage,
  asUser,
  type DashboardDeps,
  DONE,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
  withUser,
} from './context.ts';
import { sendCsv } from './csv.ts';
import { notFound, refusal } from './errors.ts';
import { DoneQuery, FormBody, type FormState, formOf, PeriodQuery, readForm, refusedField } from './forms.ts';
import { documentVersions, roomDocuments, teamDocument } from './repo.ts';
import { periodOf, roomOf } from './rooms.ts';
import {
  DOCUMENT_FIELDS,
  documentsView,
  documentView,
  OVERRIDES,
  overrideOf,
  type TeamDocument,
  title,
} from './views/documents.ts';

/** The settings form: the name rules of DocumentPatch, and the download setting as its select names it. */
const DocumentForm = Type.Object({
  name: Type.Required(Type.Pick(DocumentPatch, ['name'])).properties.name,
  displayName: DocumentPatch.properties.displayName,
  download: Type.Union((Object.keys(OVERRIDES) as (keyof typeof OVERRIDES)[]).map((o) => Type.Literal(o))),
});

async function documentOf(deps: DashboardDeps, user: DashboardUser, id: string) {
  const document = await teamDocument(deps.db, user.teamId, id);
  if (!document) throw notFound();
  return document;
}

export const documentRoutes: Route = (app, deps) => {
  app.get(
    '/rooms/:id/documents',
    { schema: { params: IdParams, querystring: DoneQuery } },
    async (request, reply) => {
      const { user } = request;
      const room = await roomOf(deps, user, idParam(request));
      const documents = await roomDocuments(deps.db, user.teamId, room.id);
      const done = DONE[request.query.done ?? ''];
      return htmlPage(reply, documentsView(user, room, documents, { done, fileMaxBytes: deps.fileMaxBytes }));
    },
  );

  app.get(
    '/rooms/:id/documents.csv',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const documents = await roomDocuments(deps.db, user.teamId, room.id);
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
    /** The multipart form's fields and its one file, received and checked (files.ts); CSRF first. */
    const received = async (request: FastifyRequest, user: DashboardUser) => {
      if (!request.isMultipart()) throw refusal('chooseFile');
      const declared = Number(request.headers['content-length']);
      if (Number.isFinite(declared) && declared > deps.fileMaxBytes + 64 * 1024) {
        throw asPage(fileTooLarge(deps.fileMaxBytes));
      }
      const fields: Record<string, string> = {};
      let upload: { file: ReceivedFile; filename: string } | undefined;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            fields[part.fieldname] = String(part.value);
            continue;
          }
          // Nothing is read from the file before the form is known to be this session's.
          checkCsrf(request, user, fields);
          if (upload || part.fieldname !== 'file') {
            part.file.resume();
            continue;
          }
          upload = {
            file: await receiveFile(part.file, { maxBytes: deps.fileMaxBytes, work: deps.files }),
            filename: part.filename,
          };
        }
        checkCsrf(request, user, fields);
        if (!upload) throw refusal('noFileSent');
        return { ...upload, fields };
      } catch (err) {
        await upload?.file.discard();
        throw asPage(err);
      }
    };

    uploads.post(
      '/rooms/:id/documents',
      { bodyLimit: Number.MAX_SAFE_INTEGER, config: { csrfInParts: true } },
      withUser(async (request, reply, user) => {
        const room = await roomOf(deps, user, idParam(request));
        const { file, filename, fields } = await received(request, user);
        try {
          const name = (fields.name ?? '').trim() || filename.trim() || 'Untitled document';
          if (unstorableTextAt(name) !== undefined) {
            throw refusal('unstorableText', { detail: 'The name holds a character that cannot be stored.' });
          }
          if (!Value.Check(DocumentBody.properties.name, name))
            throw refusal('entryRefused', { detail: 'Give a name of 1 to 300 characters.' });
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
          await file.discard();
        }
      }),
    );

    // "Replace file": a new version; links show it, the earlier versions and their figures stay.
    uploads.post(
      '/documents/:id/file',
      { bodyLimit: Number.MAX_SAFE_INTEGER, config: { csrfInParts: true } },
      withUser(async (request, reply, user) => {
        const document = await documentOf(deps, user, idParam(request));
        const { file } = await received(request, user);
        try {
          await asUser(
            deps,
            user,
            {
              action: 'document.updated',
              subject: { type: 'document', id: document.id },
              before: { name: title(document), version: document.version, pageCount: document.page_count },
              after: (saved: ManagedDocument) => ({
                name: title(document),
                file: { type: file.type, sizeBytes: file.sizeBytes, sha256: file.sha256 },
                pageCount: saved.pageCount,
              }),
            },
            (ctx) => storeDocumentFile(ctx, document.id, file),
          );
          return redirect(reply, `/app/documents/${document.id}?done=replaced`);
        } catch (err) {
          throw asPage(err);
        } finally {
          await file.discard();
        }
      }),
    );
  });

  const documentPage = async (document: TeamDocument, period: Period) => {
    const figures = await pageFigures(deps.db, document.id, period, deps.clock.now());
    if (!figures) throw notFound();
    return figures;
  };

  app.get(
    '/documents/:id',
    { schema: { params: IdParams, querystring: PeriodQuery } },
    async (request, reply) => {
      const { user } = request;
      const document = await documentOf(deps, user, idParam(request));
      const period = periodOf(request.query.period);
      const figures = await documentPage(document, period);
      const versions = await documentVersions(deps.db, user.teamId, document.id);
      return htmlPage(
        reply,
        documentView(user, document, figures, period, { done: DONE[request.query.done ?? ''], versions }),
      );
    },
  );

  app.get(
    '/documents/:id/pages.csv',
    { schema: { params: IdParams, querystring: PeriodQuery } },
    async (request, reply) => {
      const document = await documentOf(deps, request.user, idParam(request));
      const period = periodOf(request.query.period);
      const figures = await documentPage(document, period);
      return sendCsv(
        reply,
        `${title(document)} pages ${period}`,
        ['documentId', 'period', 'page', 'views', 'activeSeconds', 'avgActiveSeconds'],
        figures.pages.map((p) => [document.id, period, p.page, p.views, p.activeSeconds, p.avgActiveSeconds]),
      );
    },
  );

  app.post('/documents/:id', { schema: { params: IdParams, body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const document = await documentOf(deps, user, idParam(request));
    const sentBack = async (form: FormState) =>
      htmlPage(
        reply,
        documentView(user, document, await documentPage(document, '30d'), '30d', {
          form,
          versions: await documentVersions(deps.db, user.teamId, document.id),
        }),
        400,
      );
    const form = readForm(DocumentForm, request.body, DOCUMENT_FIELDS);
    if (!form.ok) return sentBack(form.state);
    const { name, displayName, download } = form.value;
    const saved = await asUser(
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
          displayName: displayName ?? null,
          downloadOverride: OVERRIDES[download],
        }),
    ).catch((err) => refusedField(err, request.body, DOCUMENT_FIELDS));
    if ('errors' in saved) return sentBack(saved);
    return redirect(reply, `/app/documents/${document.id}?done=document-saved`);
  });

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

  // One place up or down, in one transaction (documents/commands.ts moveDocument).
  app.post(
    '/documents/:id/move',
    { schema: { params: IdParams, body: FormBody } },
    async (request, reply) => {
      const { user } = request;
      const document = await documentOf(deps, user, idParam(request));
      const direction = formOf(request.body).get('direction') === 'up' ? 'up' : 'down';
      await asUser(
        deps,
        user,
        {
          action: 'document.moved',
          subject: { type: 'document', id: document.id },
          before: { name: title(document) },
          after: (move: DocumentMove) => ({ name: title(document), direction, moved: move.moved.length > 0 }),
        },
        (ctx) => moveDocument(ctx, document.id, direction),
      );
      // The page's script moves documents without a reload: it asks for JSON, then redraws the list.
      if (request.headers.accept?.includes('application/json'))
        return reply.send({ data: { id: document.id } });
      return redirect(reply, `/app/rooms/${document.deal_room_id}/documents?done=document-saved`);
    },
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

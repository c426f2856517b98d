import { answers } from '../core/responses.ts';
import { Data, IdParams } from '../core/schemas.ts';
import {
  createDocument,
  deleteDocument,
  setDocumentPublished,
  updateDocument,
} from '../documents/commands.ts';
import { DocumentBody, DocumentPatch, ManagedDocumentSchema } from '../documents/schemas.ts';
import { deletionRoute } from '../routing/admin.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';

/** The management API's document operations. */
export function documentAdminRoutes(app: TypedFastify, { write }: AdminRouteDeps): void {
  const document = Data(ManagedDocumentSchema);

  app.post(
    '/deal-rooms/:id/documents',
    {
      schema: {
        operationId: 'createDocument',
        tags: ['Documents'],
        summary: 'Add a document, a draft unless `status` is published (document.created)',
        params: IdParams,
        body: DocumentBody,
        response: answers(201, document, 400, 404, 409),
      },
    },
    async (request, reply) => {
      const data = await write(request, (ctx) => createDocument(ctx, request.params.id, request.body));
      return reply.code(201).send({ data });
    },
  );

  app.patch(
    '/documents/:id',
    {
      schema: {
        operationId: 'updateDocument',
        tags: ['Documents'],
        summary: 'Change a document, its `downloadOverride` included (document.updated)',
        params: IdParams,
        body: DocumentPatch,
        response: answers(200, document, 400, 404),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => updateDocument(ctx, request.params.id, request.body)),
    }),
  );

  for (const [action, published] of [
    ['publish', true],
    ['unpublish', false],
  ] as const) {
    app.post(
      `/documents/:id/${action}`,
      {
        schema: {
          operationId: `${action}Document`,
          tags: ['Documents'],
          summary: published
            ? 'Publish a document (document.published; none when it already is)'
            : 'Take a document back to draft (document.unpublished; none when it is not published)',
          params: IdParams,
          response: answers(200, document, 404, 409),
        },
      },
      async (request) => ({
        data: await write(request, (ctx) => setDocumentPublished(ctx, request.params.id, published)),
      }),
    );
  }

  deletionRoute(
    app,
    write,
    {
      url: '/documents/:id',
      operationId: 'deleteDocument',
      tags: ['Documents'],
      summary: 'Delete a document with its views and downloads (document.deleted)',
    },
    deleteDocument,
  );
}

import {
  createDealRoom,
  deleteDealRoom,
  setDealRoomStatus,
  updateDealRoom,
} from '../../deal-rooms/commands.ts';
import {
  createDocument,
  deleteDocument,
  setDocumentPublished,
  updateDocument,
} from '../../documents/commands.ts';
import type { TypedFastify } from '../../http/types.ts';
import type { ManagementRouteDeps } from '../app.ts';
import {
  Data,
  DealRoomBody,
  DealRoomPatch,
  DocumentBody,
  DocumentPatch,
  IdParams,
  ManagedDealRoomSchema,
  ManagedDocumentSchema,
  TeamParams,
} from '../schemas.ts';
import { answers, NO_CONTENT } from './common.ts';
import { linkRoutes } from './links.ts';

/** Deal rooms, their documents (and links, in links.ts). */
export function roomRoutes(app: TypedFastify, deps: ManagementRouteDeps): void {
  const { write } = deps;
  const room = Data(ManagedDealRoomSchema);
  const document = Data(ManagedDocumentSchema);
  const tags = ['Deal rooms'];

  app.post(
    '/teams/:teamId/deal-rooms',
    {
      schema: {
        operationId: 'createDealRoom',
        tags,
        summary: 'Create a deal room (deal_room.created)',
        params: TeamParams,
        body: DealRoomBody,
        response: answers(201, room, 400, 404, 409),
      },
    },
    async (request, reply) => {
      const data = await write(request, (ctx) => createDealRoom(ctx, request.params.teamId, request.body));
      return reply.code(201).send({ data });
    },
  );

  app.patch(
    '/deal-rooms/:id',
    {
      schema: {
        operationId: 'updateDealRoom',
        tags,
        summary: 'Rename or describe a deal room (deal_room.updated)',
        params: IdParams,
        body: DealRoomPatch,
        response: answers(200, room, 400, 404),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => updateDealRoom(ctx, request.params.id, request.body)),
    }),
  );

  for (const [action, status, event] of [
    ['archive', 'archived', 'deal_room.archived'],
    ['restore', 'active', 'deal_room.restored'],
  ] as const) {
    app.post(
      `/deal-rooms/:id/${action}`,
      {
        schema: {
          operationId: `${action}DealRoom`,
          tags,
          summary: `${action === 'archive' ? 'Archive' : 'Restore'} a deal room (${event}; none when it already is)`,
          params: IdParams,
          response: answers(200, room, 404, 409),
        },
      },
      async (request) => ({
        data: await write(request, (ctx) => setDealRoomStatus(ctx, request.params.id, status)),
      }),
    );
  }

  app.delete(
    '/deal-rooms/:id',
    {
      schema: {
        operationId: 'deleteDealRoom',
        tags,
        summary: 'Delete a deal room with everything in it (deal_room.deleted)',
        params: IdParams,
        response: answers(204, NO_CONTENT as never, 404),
      },
    },
    async (request, reply) => {
      await write(request, (ctx) => deleteDealRoom(ctx, request.params.id));
      return reply.code(204).send();
    },
  );

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

  app.delete(
    '/documents/:id',
    {
      schema: {
        operationId: 'deleteDocument',
        tags: ['Documents'],
        summary: 'Delete a document with its views and downloads (document.deleted)',
        params: IdParams,
        response: answers(204, NO_CONTENT as never, 404),
      },
    },
    async (request, reply) => {
      await write(request, (ctx) => deleteDocument(ctx, request.params.id));
      return reply.code(204).send();
    },
  );

  linkRoutes(app, deps);
}

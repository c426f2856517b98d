import { answers } from '../core/responses.ts';
import { Data, IdParams } from '../core/schemas.ts';
import { instantOf } from '../core/time.ts';
import { deletionRoute } from '../routing/admin.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import { createLink, deactivateLink, deleteLink, updateLink } from './commands.ts';
import { LinkBody, LinkPatch, ManagedLinkSchema } from './schemas.ts';

export function linkAdminRoutes(app: TypedFastify, { write }: AdminRouteDeps): void {
  const link = Data(ManagedLinkSchema);
  const tags = ['Links'];

  app.post(
    '/deal-rooms/:id/links',
    {
      schema: {
        operationId: 'createLink',
        tags,
        summary: 'Share a link to the room (link.created)',
        description:
          'A `password` is stored hashed and never returned; `documentIds` limits what the link shows.',
        params: IdParams,
        body: LinkBody,
        response: answers(201, link, 400, 404, 409),
      },
    },
    async (request, reply) => {
      const { expiresAt, ...rest } = request.body;
      const input = { ...rest, expiresAt: instantOf(expiresAt, 'expiresAt') };
      const data = await write(request, (ctx) => createLink(ctx, request.params.id, input));
      return reply.code(201).send({ data });
    },
  );

  app.patch(
    '/links/:id',
    {
      schema: {
        operationId: 'updateLink',
        tags,
        summary: 'Change a link (link.updated); `password: null` removes the password',
        params: IdParams,
        body: LinkPatch,
        response: answers(200, link, 400, 404, 409),
      },
    },
    async (request) => {
      const { expiresAt, ...rest } = request.body;
      const changes =
        expiresAt === undefined ? rest : { ...rest, expiresAt: instantOf(expiresAt, 'expiresAt') };
      return { data: await write(request, (ctx) => updateLink(ctx, request.params.id, changes)) };
    },
  );

  app.post(
    '/links/:id/deactivate',
    {
      schema: {
        operationId: 'deactivateLink',
        tags,
        summary: 'Disable a link (link.deactivated; none when it already is)',
        params: IdParams,
        response: answers(200, link, 404, 409),
      },
    },
    async (request) => ({ data: await write(request, (ctx) => deactivateLink(ctx, request.params.id)) }),
  );

  deletionRoute(
    app,
    write,
    {
      url: '/links/:id',
      operationId: 'deleteLink',
      tags: tags,
      summary: 'Delete a link with its visits, views and downloads (link.deleted)',
    },
    deleteLink,
  );
}

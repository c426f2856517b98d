import { answers, NO_CONTENT } from '../core/responses.ts';
import { IdParams } from '../core/schemas.ts';
import type { WriteContext } from '../write/transaction.ts';
import type { AdminRouteDeps, TypedFastify } from './types.ts';

/** `DELETE {url}` of a resource by id: 204, or 404; the deletion is its domain function's. */
export function deletionRoute(
  app: TypedFastify,
  write: AdminRouteDeps['write'],
  route: { url: `${string}/:id`; operationId: string; tags: string[]; summary: string },
  remove: (ctx: WriteContext, id: string) => Promise<unknown>,
): void {
  app.delete(
    route.url,
    {
      schema: {
        operationId: route.operationId,
        tags: route.tags,
        summary: route.summary,
        params: IdParams,
        response: answers(204, NO_CONTENT as never, 404),
      },
    },
    async (request, reply) => {
      await write(request, (ctx) => remove(ctx, request.params.id));
      return reply.code(204).send();
    },
  );
}

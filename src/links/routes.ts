import { RoomParams } from '../deal-rooms/routes.ts';
import { ListEnvelope, list } from '../http/envelope.ts';
import { PaginationQuery, toPageRequest } from '../http/query.ts';
import { responses } from '../http/responses.ts';
import type { RouteDeps, TypedFastify } from '../http/types.ts';
import { LinkSchema } from './schemas.ts';
import { listLinks } from './service.ts';

export function linkRoutes(app: TypedFastify, { db, clock, appUrl }: RouteDeps): void {
  app.get(
    '/deal-rooms/:id/links',
    {
      schema: {
        operationId: 'listLinks',
        tags: ['Deal rooms'],
        summary: 'List share links',
        description: "The room's share links, most recently created first.",
        params: RoomParams,
        querystring: PaginationQuery,
        response: responses(ListEnvelope(LinkSchema), { validates: true, hasRoomId: true }),
      },
    },
    async (request) => {
      const pageRequest = toPageRequest(request.query);
      const page = await listLinks(db, request.caller.teamId, request.params.id, pageRequest, {
        appUrl,
        now: clock.now(),
      });
      return list(page, pageRequest);
    },
  );
}

import { ListEnvelope, list } from '../core/envelope.ts';
import { PaginationQuery, toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
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

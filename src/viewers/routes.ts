import { ListEnvelope, list } from '../core/envelope.ts';
import { PaginationQuery, toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { ViewerSchema } from './schemas.ts';
import { listViewers } from './service.ts';

export function viewerRoutes(app: TypedFastify, { db }: RouteDeps): void {
  app.get(
    '/deal-rooms/:id/viewers',
    {
      schema: {
        operationId: 'listViewers',
        tags: ['Deal rooms'],
        summary: 'List viewers',
        description:
          "The room's viewers (people with at least one view), with all-time engagement, most recent view first.",
        params: RoomParams,
        querystring: PaginationQuery,
        response: responses(ListEnvelope(ViewerSchema), { validates: true, hasRoomId: true }),
      },
    },
    async (request) => {
      const pageRequest = toPageRequest(request.query);
      const page = await listViewers(db, request.caller.teamId, request.params.id, pageRequest);
      return list(page, pageRequest);
    },
  );
}

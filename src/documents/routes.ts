import { ListEnvelope, list } from '../core/envelope.ts';
import { PaginationQuery, toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { DocumentSchema } from './schemas.ts';
import { listDocuments } from './service.ts';

export function documentRoutes(app: TypedFastify, { db }: RouteDeps): void {
  app.get(
    '/deal-rooms/:id/documents',
    {
      schema: {
        operationId: 'listDocuments',
        tags: ['Deal rooms'],
        summary: 'List documents',
        description: "The room's published documents, in sidebar order.",
        params: RoomParams,
        querystring: PaginationQuery,
        response: responses(ListEnvelope(DocumentSchema), { validates: true, hasRoomId: true }),
      },
    },
    async (request) => {
      const pageRequest = toPageRequest(request.query);
      const page = await listDocuments(db, request.caller.teamId, request.params.id, pageRequest);
      return list(page, pageRequest);
    },
  );
}

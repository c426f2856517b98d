import { RoomParams } from '../deal-rooms/routes.ts';
import { ListEnvelope, list } from '../http/envelope.ts';
import { PaginationQuery, toPageRequest } from '../http/query.ts';
import { responses } from '../http/responses.ts';
import type { RouteDeps, TypedFastify } from '../http/types.ts';
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

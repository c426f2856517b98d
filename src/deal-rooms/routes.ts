import { Type } from '@sinclair/typebox';
import { ListEnvelope, list, SingleEnvelope, single } from '../core/envelope.ts';
import { toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { DealRoomDetailSchema, DealRoomListQuery, DealRoomSchema } from './schemas.ts';
import { getDealRoom, listDealRooms } from './service.ts';

/**
 * The room id is declared as a plain string: a malformed id must answer 404 like any other
 * id that names no accessible room, not fail validation with a 400.
 */
export const RoomParams = Type.Object({
  id: Type.String({ description: 'Deal room id (a UUID)' }),
});

export function dealRoomRoutes(app: TypedFastify, { db }: RouteDeps): void {
  app.get(
    '/deal-rooms',
    {
      schema: {
        operationId: 'listDealRooms',
        tags: ['Deal rooms'],
        summary: 'List deal rooms',
        description: "The caller's team's rooms, most recently updated first.",
        querystring: DealRoomListQuery,
        response: responses(ListEnvelope(DealRoomSchema), { validates: true }),
      },
    },
    async (request) => {
      const pageRequest = toPageRequest(request.query);
      const page = await listDealRooms(db, request.caller.teamId, {
        ...pageRequest,
        status: request.query.status,
      });
      return list(page, pageRequest);
    },
  );

  app.get(
    '/deal-rooms/:id',
    {
      schema: {
        operationId: 'getDealRoom',
        tags: ['Deal rooms'],
        summary: 'Get a deal room',
        description: 'One room with its all-time engagement figures.',
        params: RoomParams,
        response: responses(SingleEnvelope(DealRoomDetailSchema), { hasRoomId: true }),
      },
    },
    async (request) => {
      return single(await getDealRoom(db, request.caller.teamId, request.params.id));
    },
  );
}

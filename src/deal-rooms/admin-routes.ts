import { answers } from '../core/responses.ts';
import { Data, IdParams, TeamParams } from '../core/schemas.ts';
import { createDealRoom, deleteDealRoom, setDealRoomStatus, updateDealRoom } from '../deal-rooms/commands.ts';
import { DealRoomBody, DealRoomPatch, ManagedDealRoomSchema } from '../deal-rooms/schemas.ts';
import { deletionRoute } from '../routing/admin.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';

/** The management API's deal-room operations. */
export function dealRoomAdminRoutes(app: TypedFastify, { write }: AdminRouteDeps): void {
  const room = Data(ManagedDealRoomSchema);
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

  deletionRoute(
    app,
    write,
    {
      url: '/deal-rooms/:id',
      operationId: 'deleteDealRoom',
      tags: tags,
      summary: 'Delete a deal room with everything in it (deal_room.deleted)',
    },
    deleteDealRoom,
  );
}

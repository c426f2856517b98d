import type { TSchema } from '@sinclair/typebox';
import { ListEnvelope, list, type Page, SingleEnvelope, single } from '../core/envelope.ts';
import { type PageRequest, PaginationQuery, toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../core/schemas.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { DealRoomDetailSchema, DealRoomListQuery, DealRoomSchema } from './schemas.ts';
import { getDealRoom, listDealRooms } from './service.ts';

/** A read route listing one kind of a room's contents, a page at a time. */
export interface RoomListRoute<T extends TSchema> {
  url: `/deal-rooms/:id/${string}`;
  operationId: string;
  summary: string;
  description: string;
  item: T;
  /** The page of the caller's team's room; a room the team cannot see is a 404. */
  list(teamId: string, roomId: string, pageRequest: PageRequest): Promise<Page<unknown>>;
}

export function roomListRoute<T extends TSchema>(app: TypedFastify, route: RoomListRoute<T>): void {
  app.get(
    route.url,
    {
      schema: {
        operationId: route.operationId,
        tags: ['Deal rooms'],
        summary: route.summary,
        description: route.description,
        params: RoomParams,
        querystring: PaginationQuery,
        response: responses(ListEnvelope(route.item), { validates: true, hasRoomId: true }),
      },
    },
    async (request) => {
      const pageRequest = toPageRequest(request.query);
      const page = await route.list(request.caller.teamId, request.params.id, pageRequest);
      return list(page, pageRequest);
    },
  );
}

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

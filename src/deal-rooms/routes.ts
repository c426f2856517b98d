import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { ListEnvelope, list, type Page, pageWindow, SingleEnvelope, single } from '../core/envelope.ts';
import { apiErrors } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { type PageRequest, PaginationQuery, toPageRequest } from '../core/query.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../core/schemas.ts';
import type { KeptBodies } from '../routing/kept-bodies.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { roomListStamp, roomVersion } from './repo.ts';
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
  list(teamId: string, roomId: string, pageRequest: PageRequest, now: Date): Promise<Page<Static<T>>>;
  /** When a page shown at `now` changes by the clock alone (a link expiring); never by default. */
  validUntil?(items: readonly Static<T>[], now: Date): number;
}

/**
 * A room's list as a one-query read: the room's figures version (which authorises it too)
 * decides whether the page rendered for it at that version still holds (routing/kept-bodies.ts);
 * only when it does not is the page read and rendered again. Every write to what a list
 * shows moves the version in its transaction, so a kept page never outlives a write, in any
 * process.
 */
export function roomListRoute<T extends TSchema>(
  app: TypedFastify,
  { db, clock, keptLists: kept }: RouteDeps,
  route: RoomListRoute<T>,
): void {
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
    async (request, reply) => {
      const pageRequest = toPageRequest(request.query);
      const { teamId } = request.caller;
      const roomId = request.params.id;
      const version = isUuid(roomId) ? await roomVersion(db, teamId, roomId) : undefined;
      if (version === undefined) throw apiErrors.dealRoomNotFound();
      const now = clock.now();
      const key = `${route.url} ${roomId.toLowerCase()} ${pageRequest.page} ${pageRequest.perPage}`;
      return sendKept(reply, kept, { key, stamp: version, now }, async () => {
        const page = await route.list(teamId, roomId, pageRequest, now);
        const validUntil = route.validUntil?.(page.items, now);
        return { envelope: list(page, pageRequest), stamp: version, validUntil };
      });
    },
  );
}

/**
 * A body as kept under `key` while its stamp holds; otherwise read, rendered from the route's
 * schema and kept at the stamp the read gives, with the ETag made when it was kept.
 */
async function sendKept(
  reply: FastifyReply,
  kept: KeptBodies,
  at: { key: string; stamp: string | undefined; now: Date },
  read: () => Promise<{ envelope: unknown; stamp: string; validUntil?: number | undefined }>,
) {
  let body = at.stamp === undefined ? undefined : kept.get(at.key, at.stamp, at.now.getTime());
  if (!body) {
    const { envelope, stamp, validUntil } = await read();
    body = kept.set(at.key, stamp, reply.serialize(envelope) as string, validUntil);
  }
  return reply.header('ETag', body.etag).type('application/json; charset=utf-8').send(body.body);
}

export function dealRoomRoutes(app: TypedFastify, { db, clock, keptLists: kept }: RouteDeps): void {
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
    // A one-query read like a room's lists: the page's stamp (the versions of the rows it
    // reads) decides whether the page rendered at it still holds.
    async (request, reply) => {
      const pageRequest = toPageRequest(request.query);
      const { teamId } = request.caller;
      const { status } = request.query;
      const key = `/deal-rooms ${teamId} ${status ?? ''} ${pageRequest.page} ${pageRequest.perPage}`;
      const stamp = await roomListStamp(db, teamId, { status, ...pageWindow(pageRequest) });
      return sendKept(reply, kept, { key, stamp, now: clock.now() }, async () => {
        // Kept at the stamp of what was read, which may be newer than the one above.
        const read = await listDealRooms(db, teamId, { ...pageRequest, status });
        // No stamp only for a team that is gone: never asked for again (see above).
        return { envelope: list(read.page, pageRequest), stamp: read.stamp ?? '' };
      });
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
    // A one-query read like the lists: the room's version decides whether the body rendered
    // at it still holds; every column the body shows is the room row's own.
    async (request, reply) => {
      const { teamId } = request.caller;
      const roomId = request.params.id;
      const version = isUuid(roomId) ? await roomVersion(db, teamId, roomId) : undefined;
      if (version === undefined) throw apiErrors.dealRoomNotFound();
      const key = `/deal-rooms/:id ${roomId.toLowerCase()}`;
      return sendKept(reply, kept, { key, stamp: version, now: clock.now() }, async () => {
        // Kept at the version of what was read, which may be newer than the one above.
        const read = await getDealRoom(db, teamId, roomId);
        return { envelope: single(read.room), stamp: read.version };
      });
    },
  );
}

import { createHash } from 'node:crypto';
import { SingleEnvelope, single } from '../core/envelope.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../core/schemas.ts';
import { isoDay } from '../core/time.ts';
import { notModified } from '../routing/caching.ts';
import { keptBodies } from '../routing/kept-bodies.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { AnalyticsQuery, AnalyticsSchema } from './schemas.ts';
import { analyticsOf, analyticsRoom } from './service.ts';

/** Bodies of one release only: another release may render the same figures otherwise. */
const RELEASE = createHash('sha256').update(JSON.stringify(AnalyticsSchema)).digest('base64url').slice(0, 8);

export function analyticsRoutes(app: TypedFastify, { db, clock, analyticsCacheBytes }: RouteDeps): void {
  // Per (room, period), for the figures version and UTC day they were rendered at.
  const kept = keptBodies(analyticsCacheBytes ?? 32 * 2 ** 20);
  app.get(
    '/deal-rooms/:id/analytics',
    {
      schema: {
        operationId: 'getAnalytics',
        tags: ['Deal rooms'],
        summary: 'Get room analytics',
        description: 'Engagement figures for a period of whole UTC days ending today.',
        params: RoomParams,
        querystring: AnalyticsQuery,
        response: responses(SingleEnvelope(AnalyticsSchema), { validates: true, hasRoomId: true }),
      },
    },
    async (request, reply) => {
      const period = request.query.period ?? '30d';
      const { teamId } = request.caller;
      const roomId = request.params.id;
      const now = clock.now();
      // One query when nothing changed: the room's figures and version, which authorise it too.
      const room = await analyticsRoom(db, teamId, roomId);
      const stamp = `${room.figures_version}.${isoDay(now)}`;
      if (notModified(request, reply, `W/"${RELEASE}.${period}.${stamp}"`)) return reply.send();
      const key = `${roomId} ${period}`;
      let body = kept.get(key, stamp, now.getTime())?.body;
      if (body === undefined) {
        body = reply.serialize(single(await analyticsOf(db, teamId, roomId, room, period, now))) as string;
        kept.set(key, stamp, body);
      }
      return reply.type('application/json; charset=utf-8').send(body);
    },
  );
}

import { SingleEnvelope, single } from '../core/envelope.ts';
import { responses } from '../core/responses.ts';
import { RoomParams } from '../core/schemas.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { AnalyticsQuery, AnalyticsSchema } from './schemas.ts';
import { getAnalytics } from './service.ts';

export function analyticsRoutes(app: TypedFastify, { db, clock }: RouteDeps): void {
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
    async (request) => {
      const period = request.query.period ?? '30d';
      const analytics = await getAnalytics(db, request.caller.teamId, request.params.id, period, clock.now());
      return single(analytics);
    },
  );
}

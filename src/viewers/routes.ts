import { roomListRoute } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { ViewerSchema } from './schemas.ts';
import { listViewers } from './service.ts';

export function viewerRoutes(app: TypedFastify, deps: RouteDeps): void {
  roomListRoute(app, deps, {
    url: '/deal-rooms/:id/viewers',
    operationId: 'listViewers',
    summary: 'List viewers',
    description:
      "The room's viewers (people with at least one view), with all-time engagement, most recent view first.",
    item: ViewerSchema,
    list: (teamId, roomId, pageRequest) => listViewers(deps.db, teamId, roomId, pageRequest),
  });
}

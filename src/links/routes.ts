import { roomListRoute } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { LinkSchema } from './schemas.ts';
import { listLinks } from './service.ts';

export function linkRoutes(app: TypedFastify, { db, clock, appUrl }: RouteDeps): void {
  roomListRoute(app, {
    url: '/deal-rooms/:id/links',
    operationId: 'listLinks',
    summary: 'List share links',
    description: "The room's share links, most recently created first.",
    item: LinkSchema,
    list: (teamId, roomId, pageRequest) =>
      listLinks(db, teamId, roomId, pageRequest, { appUrl, now: clock.now() }),
  });
}

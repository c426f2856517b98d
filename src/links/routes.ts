import { roomListRoute } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { LinkSchema } from './schemas.ts';
import { listLinks } from './service.ts';

export function linkRoutes(app: TypedFastify, deps: RouteDeps): void {
  roomListRoute(app, deps, {
    url: '/deal-rooms/:id/links',
    operationId: 'listLinks',
    summary: 'List share links',
    description: "The room's share links, most recently created first.",
    item: LinkSchema,
    list: (teamId, roomId, pageRequest, now) =>
      listLinks(deps.db, teamId, roomId, pageRequest, { appUrl: deps.appUrl, now }),
    // A page's statuses change when the next of its links expires.
    validUntil: (items, now) =>
      Math.min(
        ...items
          .map((link) => (link.expiresAt ? Date.parse(link.expiresAt) : Number.POSITIVE_INFINITY))
          .filter((at) => at > now.getTime()),
      ),
  });
}

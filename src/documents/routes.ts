import { roomListRoute } from '../deal-rooms/routes.ts';
import type { RouteDeps, TypedFastify } from '../routing/types.ts';
import { DocumentSchema } from './schemas.ts';
import { listDocuments } from './service.ts';

export function documentRoutes(app: TypedFastify, deps: RouteDeps): void {
  roomListRoute(app, deps, {
    url: '/deal-rooms/:id/documents',
    operationId: 'listDocuments',
    summary: 'List documents',
    description: "The room's published documents, in sidebar order.",
    item: DocumentSchema,
    list: (teamId, roomId, pageRequest) => listDocuments(deps.db, teamId, roomId, pageRequest),
  });
}

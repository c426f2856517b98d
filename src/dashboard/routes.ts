import type { TypedFastify } from '../routing/types.ts';
import type { DashboardDeps } from './context.ts';
import { documentRoutes } from './documents.ts';
import { linkRoutes } from './links.ts';
import { roomRoutes } from './rooms.ts';
import { settingsRoutes } from './settings.ts';
import { signInRoutes } from './sign-in.ts';
import { viewerRoutes } from './viewers.ts';

/**
 * The dashboard (contract.md section 8): a team's users sign in, share rooms and read who
 * read what. Server-rendered pages on the web app's listener; every change goes through the
 * domain function the management API uses, with its audit entry in the same transaction.
 */
export function dashboardRoutes(app: TypedFastify, deps: DashboardDeps): void {
  for (const routes of [signInRoutes, roomRoutes, documentRoutes, linkRoutes, viewerRoutes, settingsRoutes]) {
    routes(app, deps);
  }
}

import type { TypedFastify } from '../routing/types.ts';
import { activityRoutes } from './activity.ts';
import { checkCsrf, checkRole, type DashboardUser, type May, requireUser } from './auth.ts';
import type { DashboardDeps } from './context.ts';
import { documentRoutes } from './documents.ts';
import { unstorableForm } from './forms.ts';
import { linkRoutes } from './links.ts';
import { notificationRoutes, unsubscribeRoutes } from './notifications.ts';
import { roomRoutes } from './rooms.ts';
import { settingsRoutes } from './settings.ts';
import { signInRoutes } from './sign-in.ts';
import { viewerRoutes } from './viewers.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in user, set for every route of the dashboard's plugin. */
    user: DashboardUser;
  }
  interface FastifyContextConfig {
    /** What the route lets a user do: read for a GET, change for a POST unless it says so. */
    may?: May;
    /** A multipart form checks its CSRF field itself, before it reads a file. */
    csrfInParts?: boolean;
  }
}

/**
 * The dashboard (contract.md section 8): a team's users sign in, share rooms and read who
 * read what. The sign-in pages stand at the root; every other page is a route of one plugin
 * under /app, where a hook sets the signed-in user (or sends the person to sign in) and one
 * pre-handler checks a change's CSRF token and the role its route declares. Every change goes
 * through the domain function the management API uses, within the user's team, with its
 * audit entry in the same transaction.
 */
export function dashboardRoutes(app: TypedFastify, deps: DashboardDeps): void {
  signInRoutes(app, deps);
  unsubscribeRoutes(app, deps);
  app.register(
    async (scope: TypedFastify) => {
      scope.decorateRequest('user', null as unknown as DashboardUser);
      scope.addHook('onRequest', async (request, reply) => {
        const user = await requireUser(
          deps.db,
          deps.clock,
          request,
          reply,
          deps.secureCookies,
          deps.sessionIdleMs,
        );
        if (!user) return reply;
        request.user = user;
      });
      scope.addHook('preHandler', async (request) => {
        const { config } = request.routeOptions;
        const changes = request.method !== 'GET' && request.method !== 'HEAD';
        checkRole(request.user, config.may ?? (changes ? 'change' : 'read'));
        if (changes && !config.csrfInParts) {
          checkCsrf(request, request.user);
          unstorableForm(request.body);
        }
      });
      for (const routes of [
        roomRoutes,
        activityRoutes,
        documentRoutes,
        linkRoutes,
        viewerRoutes,
        notificationRoutes,
        settingsRoutes,
      ]) {
        routes(scope, deps);
      }
    },
    { prefix: '/app' },
  );
}

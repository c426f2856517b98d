import { accountRoutes } from './account.ts';
import { auditRoutes } from './audit.ts';
import { type Route, redirect } from './context.ts';
import { keyRoutes } from './keys.ts';
import { teamRoutes } from './team.ts';
import { userRoutes } from './users.ts';
import { webhookRoutes } from './webhooks.ts';

/** The team's settings (its timezone and internal domains, keys, webhooks, users, the audit log) and the person's own account. */
export const settingsRoutes: Route = (app, deps) => {
  app.get('/settings', async (_request, reply) => redirect(reply, '/app/settings/keys'));
  for (const routes of [teamRoutes, keyRoutes, webhookRoutes, userRoutes, auditRoutes, accountRoutes])
    routes(app, deps);
};

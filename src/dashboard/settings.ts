import { accountRoutes } from './account.ts';
import { auditRoutes } from './audit.ts';
import { type Route, redirect } from './context.ts';
import { keyRoutes } from './keys.ts';
import { userRoutes } from './users.ts';
import { webhookRoutes } from './webhooks.ts';

/** The team's settings (keys, webhooks, users, the audit log) and the person's own account. */
export const settingsRoutes: Route = (app, deps) => {
  app.get('/settings', async (_request, reply) => redirect(reply, '/app/settings/keys'));
  for (const routes of [keyRoutes, webhookRoutes, userRoutes, auditRoutes, accountRoutes]) routes(app, deps);
};

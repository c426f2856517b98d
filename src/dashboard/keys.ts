import { Type } from '@sinclair/typebox';
import type { Html } from '../core/html.ts';
import { createApiKey, listApiKeys, MAX_ACTIVE_KEYS_PER_TEAM, revokeApiKey } from '../keys/commands.ts';
import { ApiKeyBody } from '../keys/schemas.ts';
import type { DashboardUser } from './auth.ts';
import { asUser, doneOf, htmlPage, type Route, subjectAction, withUser } from './context.ts';
import { FormBody, type FormState, readForm } from './forms.ts';
import { notice } from './layout.ts';
import { KEY_FIELDS, keysView } from './views/keys.ts';
import { shownOnce } from './views/settings.ts';

/** A key made in the dashboard is named (the management API names it "API key" when not). */
const NamedKey = Type.Required(ApiKeyBody);

/** API keys: the plain key only on the page that answers "Create key". */
export const keyRoutes: Route = (app, deps) => {
  const page = async (user: DashboardUser, o: { top?: Html | ''; form?: FormState } = {}) =>
    keysView(user, await listApiKeys(deps.db, user.teamId), MAX_ACTIVE_KEYS_PER_TEAM, o);

  app.get(
    '/settings/keys',
    withUser(async (request, reply, user) =>
      htmlPage(reply, await page(user, { top: notice(doneOf(request)) })),
    ),
  );

  app.post(
    '/settings/keys',
    { schema: { body: FormBody } },
    withUser(async (request, reply, user) => {
      const form = readForm(NamedKey, request.body, KEY_FIELDS);
      if (!form.ok) return htmlPage(reply, await page(user, { form: form.state }), 400);
      const { key } = await asUser(
        deps,
        user,
        {
          action: 'api_key.created',
          subject: { type: 'api_key' },
          after: (r: { apiKey: unknown }) => r.apiKey,
        },
        (ctx) => createApiKey(ctx, { teamId: user.teamId, name: form.value.name }),
      );
      const top = shownOnce(
        'Your new key',
        key,
        'Copy it now: it is shown only this once. Send it as Authorization: Bearer <key>.',
      );
      return htmlPage(reply, await page(user, { top }), 201);
    }),
  );

  subjectAction(app, deps, '/keys/:id/revoke', {
    find: async (_user, id) => ({ id }),
    type: 'api_key',
    action: 'api_key.revoked',
    run: (ctx, key) => revokeApiKey(ctx, key.id),
    next: () => '/app/settings/keys?done=key-revoked',
  });
};

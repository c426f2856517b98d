import { Type } from '@sinclair/typebox';
import type { Html } from '../core/html.ts';
import { newId } from '../core/ids.ts';
import { IdParams } from '../core/schemas.ts';
import {
  createEndpoint,
  deleteEndpoint,
  MAX_ENDPOINTS_PER_TEAM,
  recordTestSend,
  replayDeadLetter,
  replayEndpointDeadLetters,
  rotateEndpointSecret,
  updateEndpoint,
} from '../webhooks/commands.ts';
import {
  currentSecret,
  listAttempts,
  listDeadLetters,
  listEndpoints,
  recentTestSends,
} from '../webhooks/repo.ts';
import { EndpointBody, EndpointPatch } from '../webhooks/schemas.ts';
import { actorOf, type DashboardUser } from './auth.ts';
import {
  asUser,
  type DashboardDeps,
  doneOf,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
  withUser,
} from './context.ts';
import { notFound } from './errors.ts';
import { FormBody, type FormState, readForm, refusedField } from './forms.ts';
import { notice, problem } from './layout.ts';
import { teamDeadLetter } from './repo.ts';
import { shownOnce } from './views/settings.ts';
import { ENDPOINT_FIELDS, endpointView, webhooksView } from './views/webhooks.ts';

/** An endpoint's change in the dashboard: its address and events (EndpointPatch's rules). */
const EditedEndpoint = Type.Required(Type.Pick(EndpointPatch, ['url', 'events']));

/** The team's endpoint (one of its ten at most), or the 404 page. */
async function endpointOf(deps: DashboardDeps, user: DashboardUser, id: string) {
  const endpoint = (await listEndpoints(deps.db, user.teamId)).find((e) => e.id === id.toLowerCase());
  if (!endpoint) throw notFound();
  return endpoint;
}

/** Webhook endpoints: the secret only on the page that answers "Add endpoint" or a rotation. */
export const webhookRoutes: Route = (app, deps) => {
  const listPage = async (user: DashboardUser, o: { top?: Html | ''; form?: FormState } = {}) => {
    const endpoints = await listEndpoints(deps.db, user.teamId);
    const dead = await listDeadLetters(deps.db, user.teamId, { limit: 1, offset: '0' });
    return webhooksView(user, endpoints, dead.total, MAX_ENDPOINTS_PER_TEAM, o);
  };
  const endpointPage = async (user: DashboardUser, id: string, top: Html | '' = '', form?: FormState) => {
    const endpoint = await endpointOf(deps, user, id);
    const attempts = await listAttempts(deps.db, endpoint.id, { limit: 50, offset: '0' });
    const tests = await recentTestSends(deps.db, endpoint.id, 10);
    const deadLetters = (
      await listDeadLetters(deps.db, user.teamId, { limit: 200, offset: '0' })
    ).items.filter((d) => d.endpointId === endpoint.id);
    return endpointView(user, { endpoint, attempts, tests, deadLetters }, top, form);
  };

  app.get(
    '/settings/webhooks',
    withUser(async (request, reply, user) =>
      htmlPage(reply, await listPage(user, { top: notice(doneOf(request)) })),
    ),
  );

  app.post(
    '/settings/webhooks',
    { schema: { body: FormBody } },
    withUser(async (request, reply, user) => {
      const form = readForm(EndpointBody, request.body, ENDPOINT_FIELDS);
      if (!form.ok) return htmlPage(reply, await listPage(user, { form: form.state }), 400);
      const created = await asUser(
        deps,
        user,
        {
          action: 'webhook_endpoint.created',
          subject: { type: 'webhook_endpoint' },
          after: (r: { endpoint: unknown }) => r.endpoint,
        },
        (ctx) => createEndpoint(ctx, user.teamId, form.value),
      ).catch((err) => refusedField(err, request.body, ENDPOINT_FIELDS));
      if ('errors' in created) return htmlPage(reply, await listPage(user, { form: created }), 400);
      const top = shownOnce(
        'Signing secret',
        created.secret,
        'Copy it now: it is shown only this once. Your receiver checks each delivery’s signature with it.',
      );
      return htmlPage(reply, await listPage(user, { top }), 201);
    }),
  );

  app.get(
    '/webhooks/:id',
    { schema: { params: IdParams } },
    withUser(async (request, reply, user) =>
      htmlPage(reply, await endpointPage(user, idParam(request), notice(doneOf(request)))),
    ),
  );

  app.post('/webhooks/:id', { schema: { params: IdParams, body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const endpoint = await endpointOf(deps, user, idParam(request));
    const form = readForm(EditedEndpoint, request.body, ENDPOINT_FIELDS);
    const refused = async (state: FormState) =>
      htmlPage(reply, await endpointPage(user, endpoint.id, '', state), 400);
    if (!form.ok) return refused(form.state);
    const saved = await asUser(
      deps,
      user,
      {
        action: 'webhook_endpoint.updated',
        subject: { type: 'webhook_endpoint', id: endpoint.id },
        before: endpoint,
      },
      (ctx) => updateEndpoint(ctx, endpoint.id, { url: form.value.url, events: form.value.events ?? null }),
    ).catch((err) => refusedField(err, request.body, ENDPOINT_FIELDS));
    if ('errors' in saved) return refused(saved);
    return redirect(reply, `/app/webhooks/${endpoint.id}?done=endpoint-saved`);
  });

  const find = (user: DashboardUser, id: string) => endpointOf(deps, user, id);
  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    subjectAction(app, deps, `/webhooks/:id/${action}`, {
      find,
      type: 'webhook_endpoint',
      action: 'webhook_endpoint.updated',
      before: (endpoint) => endpoint,
      run: (ctx, endpoint) => updateEndpoint(ctx, endpoint.id, { enabled }),
      next: (endpoint) => `/app/webhooks/${endpoint.id}?done=endpoint-saved`,
    });
  }

  // A test event: signed like a delivery and sent at once, its answer shown on the page and
  // kept in the endpoint's attempt list. It is not an event of the catalogue (type
  // webhook.test): it is never retried and no other endpoint receives it.
  app.post(
    '/webhooks/:id/test',
    { schema: { params: IdParams, body: FormBody } },
    withUser(async (request, reply, user) => {
      const endpoint = await endpointOf(deps, user, idParam(request));
      const secret = await currentSecret(deps.db, endpoint.id);
      const now = deps.clock.now();
      const id = newId(now.getTime());
      const body = JSON.stringify({
        id,
        type: 'webhook.test',
        createdAt: now.toISOString(),
        teamId: user.teamId,
        data: { endpointId: endpoint.id, sentBy: user.email },
      });
      const result = await deps.sender().send(endpoint.url, secret ? [secret] : [], id, body, now);
      // In the user's scope, not audited: a test changes nothing of the team's.
      await recordTestSend(deps.writeContext({ actor: actorOf(user), teamId: user.teamId }), endpoint.id, {
        sentAt: now,
        sentBy: user.email,
        status: result.status,
        durationMs: result.durationMs,
        error: result.error,
      });
      // The sender's own verdict: no error is a 2xx within the delivery timeout.
      const outcome =
        result.error === null
          ? notice(`Test event delivered: ${result.status} in ${result.durationMs} ms.`)
          : problem(
              `Test event not delivered: ${result.status === null ? (result.error ?? 'no answer') : `the endpoint answered ${result.status}`}.`,
            );
      return htmlPage(reply, await endpointPage(user, endpoint.id, outcome));
    }),
  );

  app.post(
    '/webhooks/:id/rotate',
    { schema: { params: IdParams, body: FormBody } },
    withUser(async (request, reply, user) => {
      const endpoint = await endpointOf(deps, user, idParam(request));
      const { secret } = await asUser(
        deps,
        user,
        {
          action: 'webhook_endpoint.secret_rotated',
          subject: { type: 'webhook_endpoint', id: endpoint.id },
          after: (r: { endpoint: unknown }) => r.endpoint,
        },
        (ctx) => rotateEndpointSecret(ctx, endpoint.id),
      );
      const top = shownOnce(
        'New signing secret',
        secret,
        'Copy it now: it is shown only this once. The previous secret also signs for 24 hours.',
      );
      return htmlPage(reply, await endpointPage(user, endpoint.id, top));
    }),
  );

  subjectAction(app, deps, '/webhooks/:id/replay', {
    find,
    type: 'webhook_endpoint',
    action: 'webhook_endpoint.replayed',
    after: (replayed: number) => ({ replayed }),
    run: (ctx, endpoint) => replayEndpointDeadLetters(ctx, endpoint.id),
    next: (endpoint) => `/app/webhooks/${endpoint.id}?done=replayed`,
  });

  subjectAction(app, deps, '/webhooks/:id/delete', {
    find,
    type: 'webhook_endpoint',
    action: 'webhook_endpoint.deleted',
    before: (endpoint) => endpoint,
    after: () => null,
    run: (ctx, endpoint) => deleteEndpoint(ctx, endpoint.id),
    next: () => '/app/settings/webhooks?done=endpoint-removed',
  });

  subjectAction(app, deps, '/dead-letters/:id/replay', {
    find: async (user, id) => {
      const endpointId = await teamDeadLetter(deps.db, user.teamId, id);
      if (!endpointId) throw notFound();
      return { id, endpointId };
    },
    type: 'dead_letter',
    action: 'dead_letter.replayed',
    run: (ctx, deadLetter) => replayDeadLetter(ctx, deadLetter.id),
    next: (deadLetter) => `/app/webhooks/${deadLetter.endpointId}?done=replayed`,
  });
};

import { pageWindow } from '../core/envelope.ts';
import { PaginationQuery, toPageRequest } from '../core/query.ts';
import { answers, paginated } from '../core/responses.ts';
import { Data, DataList, DataPage, IdParams, TeamParams } from '../core/schemas.ts';
import { deletionRoute } from '../routing/admin.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import {
  createEndpoint,
  deleteEndpoint,
  replayDeadLetter,
  replayEndpointDeadLetters,
  retirePreviousSecrets,
  rotateEndpointSecret,
  updateEndpoint,
} from './commands.ts';
import { getEndpoint, listAttempts, listDeadLetters, listEndpoints } from './repo.ts';
import {
  AttemptSchema,
  DeadLetterSchema,
  EndpointBody,
  EndpointPatch,
  EndpointSchema,
  EndpointWithSecretSchema,
  ReplayedSchema,
} from './schemas.ts';

export function webhookAdminRoutes(app: TypedFastify, { db, write }: AdminRouteDeps): void {
  const tags = ['Webhooks'];
  const endpoint = Data(EndpointSchema);

  app.post(
    '/teams/:teamId/webhook-endpoints',
    {
      schema: {
        operationId: 'createWebhookEndpoint',
        tags,
        summary: 'Register an endpoint (at most 10 per team); the answer holds its secret, once',
        params: TeamParams,
        body: EndpointBody,
        response: answers(201, Data(EndpointWithSecretSchema), 400, 404, 409),
      },
    },
    async (request, reply) => {
      const { endpoint: created, secret } = await write(request, (ctx) =>
        createEndpoint(ctx, request.params.teamId, request.body),
      );
      return reply.code(201).send({ data: { ...created, secret } });
    },
  );

  app.get(
    '/teams/:teamId/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags,
        summary: "A team's endpoints, oldest first",
        params: TeamParams,
        response: answers(200, DataList(EndpointSchema), 404),
      },
    },
    async (request) => ({ data: await listEndpoints(db, request.params.teamId) }),
  );

  app.get(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'getWebhookEndpoint',
        tags,
        summary: 'One endpoint',
        params: IdParams,
        response: answers(200, endpoint, 404),
      },
    },
    async (request) => ({ data: await getEndpoint(db, request.params.id) }),
  );

  app.patch(
    '/webhook-endpoints/:id',
    {
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags,
        summary: 'Change its URL, event filter, or enable or disable it',
        params: IdParams,
        body: EndpointPatch,
        response: answers(200, endpoint, 400, 404),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => updateEndpoint(ctx, request.params.id, request.body)),
    }),
  );

  deletionRoute(
    app,
    write,
    {
      url: '/webhook-endpoints/:id',
      operationId: 'deleteWebhookEndpoint',
      tags: tags,
      summary: 'Remove an endpoint; its pending deliveries are dropped',
    },
    deleteEndpoint,
  );

  app.post(
    '/webhook-endpoints/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new secret; the previous one also signs for 24 hours',
        params: IdParams,
        response: answers(200, Data(EndpointWithSecretSchema), 404),
      },
    },
    async (request) => {
      const { endpoint: rotated, secret } = await write(request, (ctx) =>
        rotateEndpointSecret(ctx, request.params.id),
      );
      return { data: { ...rotated, secret } };
    },
  );

  app.post(
    '/webhook-endpoints/:id/retire-previous-secrets',
    {
      schema: {
        operationId: 'retirePreviousWebhookSecrets',
        tags,
        summary: 'Stop every earlier secret signing now (after a leak); the current one is kept',
        params: IdParams,
        response: answers(200, endpoint, 404),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => retirePreviousSecrets(ctx, request.params.id)),
    }),
  );

  app.get(
    '/webhook-endpoints/:id/attempts',
    {
      schema: {
        operationId: 'listWebhookAttempts',
        tags,
        summary: 'Delivery attempts to this endpoint, newest first',
        params: IdParams,
        querystring: PaginationQuery,
        response: answers(200, DataPage(AttemptSchema), 400, 404),
      },
    },
    async (request) => {
      const page = toPageRequest(request.query);
      const { items, total } = await listAttempts(db, request.params.id, pageWindow(page));
      return paginated(items, total, page);
    },
  );

  app.get(
    '/teams/:teamId/dead-letters',
    {
      schema: {
        operationId: 'listDeadLetters',
        tags,
        summary: "The team's dead letters not yet replayed, latest failure first",
        params: TeamParams,
        querystring: PaginationQuery,
        response: answers(200, DataPage(DeadLetterSchema), 400, 404),
      },
    },
    async (request) => {
      const page = toPageRequest(request.query);
      const { items, total } = await listDeadLetters(db, request.params.teamId, pageWindow(page));
      return paginated(items, total, page);
    },
  );

  app.post(
    '/dead-letters/:id/replay',
    {
      schema: {
        operationId: 'replayDeadLetter',
        tags,
        summary: 'Queue a dead letter again: same event id, signed with the current secret',
        params: IdParams,
        response: answers(200, Data(DeadLetterSchema), 404, 409),
      },
    },
    async (request) => ({ data: await write(request, (ctx) => replayDeadLetter(ctx, request.params.id)) }),
  );

  app.post(
    '/webhook-endpoints/:id/dead-letters/replay',
    {
      schema: {
        operationId: 'replayEndpointDeadLetters',
        tags,
        summary: "Queue every dead letter of this endpoint again (after the receiver's outage)",
        params: IdParams,
        response: answers(200, Data(ReplayedSchema), 404),
      },
    },
    async (request) => ({
      data: { replayed: await write(request, (ctx) => replayEndpointDeadLetters(ctx, request.params.id)) },
    }),
  );
}

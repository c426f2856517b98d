import { answers } from '../core/responses.ts';
import { Data, DataList, IdParams, TeamParams } from '../core/schemas.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/commands.ts';
import { ApiKeyBody, ApiKeySchema, CreatedApiKeySchema } from '../keys/schemas.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';

/** The management API's API-key operations. */
export function apiKeyAdminRoutes(app: TypedFastify, { db, write }: AdminRouteDeps): void {
  app.post(
    '/teams/:teamId/keys',
    {
      schema: {
        operationId: 'createApiKey',
        tags: ['Teams'],
        summary: 'Create an API key (at most 5 active per team)',
        description: 'The plain key is in this answer only; only its hash is stored.',
        params: TeamParams,
        body: ApiKeyBody,
        response: answers(201, Data(CreatedApiKeySchema), 400, 404, 409),
      },
    },
    async (request, reply) => {
      const { key, apiKey } = await write(request, (ctx) =>
        createApiKey(ctx, { teamId: request.params.teamId, name: request.body?.name }),
      );
      return reply.code(201).send({ data: { ...apiKey, ...(key ? { key } : {}) } });
    },
  );

  app.get(
    '/teams/:teamId/keys',
    {
      schema: {
        operationId: 'listApiKeys',
        tags: ['Teams'],
        summary: "List a team's API keys, newest first (revoked ones included)",
        params: TeamParams,
        response: answers(200, DataList(ApiKeySchema), 404),
      },
    },
    async (request) => ({ data: await listApiKeys(db, request.params.teamId) }),
  );

  app.delete(
    '/keys/:id',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags: ['Teams'],
        summary: 'Revoke an API key (it fails within one second on every server)',
        params: IdParams,
        response: answers(204, { type: 'null' } as never, 404),
      },
    },
    async (request, reply) => {
      await write(request, (ctx) => revokeApiKey(ctx, request.params.id));
      return reply.code(204).send();
    },
  );
}

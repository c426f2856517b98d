import { answers } from '../core/responses.ts';
import { Data, DataList } from '../core/schemas.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import { createTeam } from '../teams/commands.ts';
import { TeamBody, TeamSchema } from '../teams/schemas.ts';
import { listTeams } from './repo.ts';

/** The management API's team operations. */
export function teamAdminRoutes(app: TypedFastify, { db, write }: AdminRouteDeps): void {
  app.post(
    '/teams',
    {
      schema: {
        operationId: 'createTeam',
        tags: ['Teams'],
        summary: 'Create a team',
        body: TeamBody,
        response: answers(201, Data(TeamSchema), 400, 409),
      },
    },
    async (request, reply) => {
      const team = await write(request, (ctx) => createTeam(ctx, request.body));
      return reply.code(201).send({ data: team });
    },
  );

  app.get(
    '/teams',
    {
      schema: {
        operationId: 'listTeams',
        tags: ['Teams'],
        summary: 'List every team, oldest first (a team id is what the other operations take)',
        response: answers(200, DataList(TeamSchema)),
      },
    },
    async () => ({ data: await listTeams(db) }),
  );
}

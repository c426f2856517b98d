import { Type } from '@sinclair/typebox';
import { answers } from '../core/responses.ts';
import { Data, DataList } from '../core/schemas.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import { createTeam, updateTeamSettings } from '../teams/commands.ts';
import { TeamBody, TeamPatch, TeamSchema, TeamSettingsSchema } from '../teams/schemas.ts';
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

  app.patch(
    '/teams/:teamId',
    {
      schema: {
        operationId: 'updateTeam',
        tags: ['Teams'],
        summary: "Change a team's name, timezone or internal domains",
        params: Type.Object({ teamId: Type.String() }),
        body: TeamPatch,
        response: answers(200, Data(TeamSettingsSchema), 400, 404),
      },
    },
    async (request) => ({
      data: await write(request, (ctx) => updateTeamSettings(ctx, request.params.teamId, request.body)),
    }),
  );
}

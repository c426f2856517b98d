import { createTeam } from '../teams/commands.ts';
import { listTeams } from '../teams/repo.ts';
import { type CommandContext, UsageError, writeContext } from './context.ts';
import { TEAMS_USAGE } from './usage.ts';

export async function teamsCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  switch (action) {
    case 'list': {
      if (rest.length > 0) throw new UsageError(`teams list takes no arguments\n${TEAMS_USAGE}`);
      ctx.out(['ID', 'NAME', 'CREATED'].join('\t'));
      for (const team of await listTeams(ctx.db)) ctx.out([team.id, team.name, team.createdAt].join('\t'));
      return;
    }
    case 'create': {
      const name = rest.join(' ').trim();
      if (name === '' || name.length > 200) {
        throw new UsageError(`give the team's name (1 to 200 characters)\n${TEAMS_USAGE}`);
      }
      const team = await createTeam(writeContext(ctx), { name });
      ctx.err(`created team ${team.name}:`);
      ctx.out(team.id);
      return;
    }
    default:
      throw new UsageError(TEAMS_USAGE);
  }
}

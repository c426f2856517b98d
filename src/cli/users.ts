import { parseArgs } from 'node:util';
import { inviteUser } from '../users/commands.ts';
import { teamUsers } from '../users/repo.ts';
import { isRole } from '../users/roles.ts';
import { type CommandContext, UsageError, writeContext } from './context.ts';
import { USERS_USAGE } from './usage.ts';

/** The dashboard's people: the first owner of a team comes from here. */
export async function usersCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { team: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  });
  if (!values.team) throw new UsageError(`--team is required\n${USERS_USAGE}`);
  switch (action) {
    case 'create': {
      if (!values.email) throw new UsageError(`--email is required\n${USERS_USAGE}`);
      const role = values.role ?? 'owner';
      if (!isRole(role)) throw new UsageError(`--role must be owner, admin or member\n${USERS_USAGE}`);
      const invitation = await inviteUser(writeContext(ctx), {
        teamId: values.team,
        email: values.email,
        role,
      });
      ctx.err(
        `invited ${invitation.email} as ${invitation.role}; the address works once, until ${invitation.expiresAt.toISOString()}:`,
      );
      ctx.out(`${ctx.config.appUrl}${invitation.path}`);
      return;
    }
    case 'list': {
      ctx.out(['ID', 'EMAIL', 'ROLE', 'STATUS', 'CREATED'].join('\t'));
      for (const user of await teamUsers(ctx.db, values.team)) {
        ctx.out(
          [
            user.id,
            user.email,
            user.role,
            user.password_hash ? 'active' : 'invited',
            user.created_at.toISOString(),
          ].join('\t'),
        );
      }
      return;
    }
    default:
      throw new UsageError(USERS_USAGE);
  }
}

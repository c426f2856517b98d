import { parseArgs } from 'node:util';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/commands.ts';
import { type CommandContext, UsageError, writeContext } from './context.ts';
import { KEYS_USAGE } from './usage.ts';

export async function keysCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: { team: { type: 'string' }, name: { type: 'string' } },
    allowPositionals: true,
  });
  switch (action) {
    case 'create': {
      if (!values.team) throw new UsageError(`--team is required\n${KEYS_USAGE}`);
      const { key, apiKey } = await createApiKey(writeContext(ctx), {
        teamId: values.team,
        name: values.name,
      });
      ctx.err(`created key ${apiKey.id} (${apiKey.name}) for team ${apiKey.teamId}; it is shown only now:`);
      ctx.out(key);
      return;
    }
    case 'list': {
      if (!values.team) throw new UsageError(`--team is required\n${KEYS_USAGE}`);
      const keys = await listApiKeys(ctx.db, values.team);
      ctx.out(['ID', 'PREFIX', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'].join('\t'));
      for (const key of keys) {
        ctx.out(
          [
            key.id,
            `${key.prefix}…`,
            key.name,
            key.createdAt,
            key.lastUsedAt ?? '-',
            key.revokedAt ?? '-',
          ].join('\t'),
        );
      }
      return;
    }
    case 'revoke': {
      const keyId = positionals[0];
      if (!keyId) throw new UsageError(`KEY_ID is required\n${KEYS_USAGE}`);
      const key = await revokeApiKey(writeContext(ctx), keyId);
      ctx.out(`revoked ${key.id} (${key.name})`);
      return;
    }
    default:
      throw new UsageError(KEYS_USAGE);
  }
}

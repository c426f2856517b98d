import { parseArgs } from 'node:util';
import { EVENT_TYPES, type EventType } from '../events/catalogue.ts';
import * as commands from '../webhooks/commands.ts';
import { listAttempts, listDeadLetters, listEndpoints } from '../webhooks/repo.ts';
import { type CommandContext, UsageError, writeContext } from './context.ts';
import { WEBHOOKS_USAGE } from './usage.ts';

const DEFAULT_LIMIT = 50;

export async function webhooksCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      team: { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      endpoint: { type: 'string' },
      limit: { type: 'string' },
    },
    allowPositionals: true,
  });
  const required = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${what} is required\n${WEBHOOKS_USAGE}`);
    return value;
  };
  const limit = parseLimit(values.limit);
  switch (action) {
    case 'add': {
      const { endpoint, secret } = await commands.createEndpoint(
        writeContext(ctx),
        required(values.team, '--team'),
        {
          url: required(values.url, '--url'),
          events: values.events === undefined ? null : parseEvents(values.events),
        },
      );
      ctx.err(
        `added endpoint ${endpoint.id} for team ${endpoint.teamId} (${endpoint.events?.join(', ') ?? 'every event type'}); its secret is shown only now:`,
      );
      ctx.out(secret);
      return;
    }
    case 'list': {
      const endpoints = await listEndpoints(ctx.db, required(values.team, '--team'));
      ctx.out(['ID', 'URL', 'EVENTS', 'ENABLED', 'CREATED'].join('\t'));
      for (const e of endpoints) {
        ctx.out([e.id, e.url, e.events?.join(',') ?? '*', String(e.enabled), e.createdAt].join('\t'));
      }
      return;
    }
    case 'remove': {
      const id = required(positionals[0], 'ENDPOINT_ID');
      await commands.deleteEndpoint(writeContext(ctx), id);
      ctx.out(`removed ${id}; its pending deliveries are dropped`);
      return;
    }
    case 'retire-secrets': {
      const endpoint = await commands.retirePreviousSecrets(
        writeContext(ctx),
        required(positionals[0], 'ENDPOINT_ID'),
      );
      ctx.out(`only the current secret of ${endpoint.id} signs now`);
      return;
    }
    case 'rotate-secret': {
      const { endpoint, secret } = await commands.rotateEndpointSecret(
        writeContext(ctx),
        required(positionals[0], 'ENDPOINT_ID'),
      );
      ctx.err(`rotated the secret of ${endpoint.id}; the previous one also signs for 24 hours. The new one:`);
      ctx.out(secret);
      return;
    }
    case 'attempts': {
      const { items, total } = await listAttempts(ctx.db, required(positionals[0], 'ENDPOINT_ID'), {
        limit,
        offset: '0',
      });
      ctx.out(['ATTEMPTED', 'EVENT', 'TYPE', 'STATUS', 'MS', 'ERROR'].join('\t'));
      for (const a of items) {
        ctx.out([a.attemptedAt, a.eventId, a.type, a.status ?? '-', a.durationMs, a.error ?? '-'].join('\t'));
      }
      if (total > items.length) ctx.err(`${items.length} of ${total} attempts shown (--limit)`);
      return;
    }
    case 'dead-letters': {
      const { items, total } = await listDeadLetters(ctx.db, required(values.team, '--team'), {
        limit,
        offset: '0',
      });
      ctx.out(
        ['ID', 'FAILED', 'ENDPOINT', 'EVENT', 'TYPE', 'ATTEMPTS', 'LAST STATUS', 'LAST ERROR'].join('\t'),
      );
      for (const d of items) {
        ctx.out(
          [
            d.id,
            d.failedAt,
            d.endpointId,
            d.eventId,
            d.type,
            d.attempts,
            d.lastStatus ?? '-',
            d.lastError ?? '-',
          ].join('\t'),
        );
      }
      if (total > items.length) ctx.err(`${items.length} of ${total} dead letters shown (--limit)`);
      return;
    }
    case 'replay': {
      if (values.endpoint !== undefined) {
        if (positionals.length > 0)
          throw new UsageError(`give a dead letter id or --endpoint, not both\n${WEBHOOKS_USAGE}`);
        const replayed = await commands.replayEndpointDeadLetters(writeContext(ctx), values.endpoint);
        ctx.out(`queued ${replayed} dead letter${replayed === 1 ? '' : 's'} of ${values.endpoint} again`);
        return;
      }
      const letter = await commands.replayDeadLetter(
        writeContext(ctx),
        required(positionals[0], 'DEAD_LETTER_ID or --endpoint'),
      );
      ctx.out(`queued ${letter.id} (event ${letter.eventId}, ${letter.type}) again`);
      return;
    }
    default:
      throw new UsageError(WEBHOOKS_USAGE);
  }
}

function parseEvents(text: string): EventType[] {
  const events = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = events.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (events.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `--events must list event types separated by commas; unknown: ${unknown.join(', ') || '(none given)'}\nthe types: ${EVENT_TYPES.join(', ')}`,
    );
  }
  return events as EventType[];
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  if (!/^[1-9]\d{0,3}$/.test(text)) throw new UsageError('--limit must be a whole number from 1 to 9999');
  return Number(text);
}

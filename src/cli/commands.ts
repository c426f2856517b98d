import { DealRoomApiError } from '../../packages/client/index.js';
import { ApiError } from '../core/errors.ts';
import type { CommandResult } from '../db/control.ts';
import { type Database, DatabaseUnavailableError } from '../db/database.ts';
import { StoreBusyError } from '../db/lock.ts';
import {
  migrate,
  migrationStatus,
  pendingMigrations,
  requireCurrentSchema,
  SchemaBehindError,
} from '../db/migrate.ts';
import { DataDirError } from '../db/open.ts';
import { ImportError } from '../import/records.ts';
import type { CommandContext } from './context.ts';
import { UsageError } from './context.ts';
import { MIGRATE_USAGE } from './usage.ts';

/** The commands that work on an open store (everything but serve). */
export const STORE_COMMANDS = [
  'migrate',
  'import',
  'seed',
  'keys',
  'teams',
  'users',
  'documents',
  'webhooks',
] as const;

type Handler = (ctx: CommandContext, args: string[]) => Promise<void>;

/**
 * Each command's module, loaded when it runs: a command loads what it needs and no more
 * (`keys` does not load the seed's PDF maker, nor `--help` anything).
 */
const HANDLERS: Record<Exclude<(typeof STORE_COMMANDS)[number], 'migrate'>, () => Promise<Handler>> = {
  import: async () => (await import('./import.ts')).importCommand,
  seed: async () => (await import('./seed.ts')).seedCommand,
  keys: async () => (await import('./keys.ts')).keysCommand,
  teams: async () => (await import('./teams.ts')).teamsCommand,
  users: async () => (await import('./users.ts')).usersCommand,
  documents: async () => (await import('./documents.ts')).documentsCommand,
  webhooks: async () => (await import('./webhooks.ts')).webhooksCommand,
};

export async function runStoreCommand(ctx: CommandContext, command: string, args: string[]): Promise<void> {
  if (command === 'migrate') return migrateCommand(ctx, args);
  const load = Object.hasOwn(HANDLERS, command) ? HANDLERS[command as keyof typeof HANDLERS] : undefined;
  if (!load) throw new UsageError(`unknown command: ${command}`);
  // Nothing runs on a schema the code is ahead of; migrating is the operator's own step.
  await requireCurrentSchema(ctx.db);
  const handler = await load();
  return handler(ctx, args);
}

/** \`dealroom migrate [--dry-run | status]\`. */
async function migrateCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [what, ...rest] = args;
  if (rest.length > 0 || (what !== undefined && what !== '--dry-run' && what !== 'status')) {
    throw new UsageError(MIGRATE_USAGE);
  }
  if (what === 'status') {
    for (const { name, appliedAt } of await migrationStatus(ctx.db)) {
      ctx.out(`${name}\t${appliedAt ? `applied ${appliedAt.toISOString()}` : 'pending'}`);
    }
    return;
  }
  if (what === '--dry-run') {
    const pending = await pendingMigrations(ctx.db);
    ctx.out(pending.length > 0 ? `would apply ${pending.join(', ')}` : 'the schema is up to date');
    return;
  }
  const applied = await migrate(ctx.db);
  ctx.out(applied.length > 0 ? `applied ${applied.join(', ')}` : 'the schema is up to date');
}

/** A failure as the operator should read it: what went wrong and, for imports, that nothing changed. */
export function describeFailure(err: unknown): string {
  if (err instanceof ImportError) return `import failed at ${err.message}\nnothing was imported`;
  const plain = [
    UsageError,
    ApiError,
    DataDirError,
    StoreBusyError,
    SchemaBehindError,
    DatabaseUnavailableError,
  ];
  if (plain.some((type) => err instanceof type)) return (err as Error).message;
  if (err instanceof DealRoomApiError) {
    const request = err.requestId ? `, request ${err.requestId}` : '';
    return `the API answered ${err.status || 'nothing'} ${err.code}: ${err.message}${request}`;
  }
  const message = err instanceof Error ? err.message : String(err);
  return `unexpected error: ${message}`;
}

/** Runs a command with its output collected, for a command forwarded to the server. */
export async function runCaptured(
  base: Omit<CommandContext, 'out' | 'err'> & { db: Database },
  args: string[],
): Promise<CommandResult> {
  const result: CommandResult = { code: 0, stdout: [], stderr: [] };
  const [command = '', ...rest] = args;
  const ctx: CommandContext = {
    ...base,
    out: (line) => result.stdout.push(line),
    err: (line) => result.stderr.push(line),
  };
  try {
    if (!(STORE_COMMANDS as readonly string[]).includes(command) || command === 'import')
      throw new UsageError(`${command} cannot run inside the server: stop it first`);
    await runStoreCommand(ctx, command, rest);
  } catch (err) {
    result.stderr.push(describeFailure(err));
    result.code = 1;
  }
  return result;
}

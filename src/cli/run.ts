import { resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { runInServer } from '../db/control.ts';
import { StoreBusyError } from '../db/lock.ts';
import { openStore } from '../db/open.ts';
import { describeFailure, runStoreCommand, STORE_COMMANDS } from './commands.ts';
import { UsageError } from './context.ts';
import { USAGE } from './help.ts';

/** A command past its help: the configuration read, then the command run. */
export async function run(argv: string[]): Promise<number> {
  const [command = '', ...args] = argv;
  let config: Readonly<Config>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      return 1;
    }
    throw err;
  }
  try {
    // Each command loads its own modules: a short command starts in a fraction of a second.
    if (command === 'serve') return await (await import('./serve.ts')).serve(config, args);
    if (command === 'worker') return await (await import('./worker.ts')).workerCommand(config, args);
    if (command === 'export') {
      await (await import('./export.ts')).exportCommand(args);
      return 0;
    }
    if (!(STORE_COMMANDS as readonly string[]).includes(command)) {
      throw new UsageError(`unknown command: ${command}\n\n${USAGE}`);
    }
    return await runWithStore(config, command, withAbsolutePaths(command, args));
  } catch (err) {
    console.error(describeFailure(err));
    return 1;
  }
}

/**
 * Opens the store and runs the command; when a server holds the embedded store, the
 * command runs inside that server instead (see control.ts).
 */
async function runWithStore(config: Readonly<Config>, command: string, args: string[]): Promise<number> {
  // A short command's embedded store lives for a fraction of a second: optimising PGlite's
  // WebAssembly in the background would cost more than it saves (about 0.35 s of a core of
  // 0.85 for a listing; 1 s of 4 for migrating a new store, which also ends sooner). Set
  // before the engine is compiled; an import or a seed runs long enough to gain from it.
  if (command !== 'import' && command !== 'seed') setFlagsFromString('--liftoff-only');
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    // An import's set-based statements grow with its size: the limit that guards the API's
    // requests does not apply to them (on PostgreSQL the import sets its own).
    opened = await openStore(
      config,
      undefined,
      command === 'import'
        ? { statementTimeoutMs: (await import('../import/service.ts')).IMPORT_STATEMENT_TIMEOUT_MS }
        : {},
    );
  } catch (err) {
    if (!(err instanceof StoreBusyError) || !err.holder.socket || !err.holder.secret) throw err;
    if (command === 'import') {
      // Run inside the server, an import would hold the embedded store (and so the API) for
      // its whole length; it runs beside the API only on PostgreSQL.
      throw new UsageError(
        `the embedded store in ${err.dataDir} is in use by dealroom serve (process ${err.holder.pid}); an import would stall its API for as long as it runs. Stop the server, import, then start it again (or use PostgreSQL, where imports run beside the API)`,
      );
    }
    const result = await runInServer(err.holder.socket, err.holder.secret, [command, ...args]);
    if (!result) throw err;
    for (const line of result.stdout) console.log(line);
    for (const line of result.stderr) console.error(line);
    return result.code;
  }
  const ctx = {
    config,
    db: opened.db,
    clock: systemClock,
    out: (line: string) => console.log(line),
    err: (line: string) => console.error(line),
  };
  try {
    await runStoreCommand(ctx, command, args);
    return 0;
  } finally {
    await opened.db.close();
  }
}

/** A file named on the command line, made absolute: a server running the command reads the same file. */
function withAbsolutePaths(command: string, args: string[]): string[] {
  if (command === 'documents' && args[0] === 'upload' && args[2] !== undefined) {
    return [args[0], args[1] ?? '', resolve(args[2]), ...args.slice(3)];
  }
  return args;
}

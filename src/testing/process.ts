import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Started, spawnSmall } from './spawner.ts';

/** The service's entry, run by node. */
export const BIN = fileURLToPath(new URL('../../bin/dealroom.mjs', import.meta.url));
/** The `dealroom` command as installed: a launcher that runs BIN with the node on PATH. */
export const COMMAND = fileURLToPath(new URL('../../bin/dealroom', import.meta.url));

/** The environment to start COMMAND in: these settings, and this process's node first on PATH. */
export function commandEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
  };
}

/** The `dealroom` command with these settings, as a person or a supervisor starts it. */
export function spawnDealroom(args: string[], env: Record<string, string>): Started {
  return spawnSmall(COMMAND, args, commandEnv(env));
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `dealroom ARGS` to completion. */
export function dealroom(args: string[], env: Record<string, string>): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawnDealroom(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface Server {
  child: Started;
  base: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `dealroom serve` on a free port and resolves once it listens. */
export async function startServer(args: string[], env: Record<string, string>): Promise<Server> {
  const child = spawnDealroom(['serve', '--port', '0', ...args], { LOG_LEVEL: 'info', ...env });
  const { ready, output, exited } = watchStart(
    child,
    'server',
    (said) => /Analytics API listening on (http:\/\/[^\s]+)/.exec(said)?.[1],
  );
  return {
    child,
    base: await ready,
    output,
    async stop(signal = 'SIGTERM') {
      child.kill(signal);
      return exited;
    },
  };
}

export interface WorkerProcess {
  child: Started;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `dealroom worker` and resolves once it runs. */
export async function startWorkerProcess(
  env: Record<string, string>,
  args: string[] = [],
): Promise<WorkerProcess> {
  const child = spawnDealroom(['worker', ...args], { LOG_LEVEL: 'warn', ...env });
  const { ready, output, exited } = watchStart(child, 'worker', (said) =>
    said.includes('Webhook worker running') ? true : undefined,
  );
  await ready;
  return { child, output, exited };
}

/**
 * Everything a started process says, on either stream, and `ready`: what `find` makes of it
 * once its standard output shows it has started (looked for until then, not again for every
 * line it logs after). `ready` fails when the process exits first or takes over 30 s.
 */
function watchStart<T>(
  child: Started,
  what: string,
  find: (said: string) => T | undefined,
): { ready: Promise<T>; output: () => string; exited: Promise<number | null> } {
  let output = '';
  const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const ready = new Promise<T>((resolve, reject) => {
    let found = false;
    const timer = setTimeout(() => reject(new Error(`${what} did not start:\n${output}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
      if (found) return;
      const value = find(output);
      if (value === undefined) return;
      found = true;
      clearTimeout(timer);
      resolve(value);
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited with ${code}:\n${output}`));
    });
  });
  return { ready, output: () => output, exited };
}

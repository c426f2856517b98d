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
export function startServer(args: string[], env: Record<string, string>): Promise<Server> {
  return new Promise((resolve, reject) => {
    const child = spawnDealroom(['serve', '--port', '0', ...args], { LOG_LEVEL: 'info', ...env });
    let output = '';
    let started = false;
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      // Matched until it listens: not again over the whole output for every line it logs after.
      if (started) return;
      const match = /Analytics API listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        started = true;
        clearTimeout(timer);
        resolve({
          child,
          base: match[1],
          output: () => output,
          async stop(signal = 'SIGTERM') {
            child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
}

export interface WorkerProcess {
  child: Started;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `dealroom worker` and resolves once it runs. */
export function startWorkerProcess(env: Record<string, string>, args: string[] = []): Promise<WorkerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawnDealroom(['worker', ...args], { LOG_LEVEL: 'warn', ...env });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 30_000);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes('Webhook worker running')) {
        clearTimeout(timer);
        resolve({ child, output: () => output, exited });
      }
    });
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
}

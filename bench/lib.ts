/** Pieces of the benchmark: child processes, memory sampling, load runs. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { dealroom as run } from '../src/testing/process.ts';

/** Runs `dealroom ARGS` to completion; throws with its output when it fails. */
export async function dealroom(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string }> {
  const result = await run(args, env as Record<string, string>);
  if (result.code !== 0)
    throw new Error(`dealroom ${args.join(' ')} exited ${result.code}:\n${result.stderr}`);
  return result;
}

export interface Listening {
  child: ChildProcess;
  base: string;
  stop(): Promise<void>;
}

/** How much of a started process's output is kept (its last characters). */
const OUTPUT_KEPT = 64 * 1024;

/** Starts a process that prints "listening on URL", and resolves with that URL. */
export function startListening(
  command: string[],
  env: NodeJS.ProcessEnv,
  pattern = /listening on (http:\/\/[^\s]+)/,
): Promise<Listening & { output: () => string }> {
  return new Promise((resolve, reject) => {
    const [file, ...args] = command as [string, ...string[]];
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let stopping = false;
    const closed = new Promise<void>((done) => child.on('close', () => done()));
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 120_000);
    /** What it said until it listened, whole; `output` then holds only its last OUTPUT_KEPT characters. */
    let startup: string | undefined;
    const onData = (chunk: Buffer) => {
      // Matched only until it listens: a service logging every request would otherwise be
      // matched whole again for each line, and the bench, not the service, would set the pace.
      if (startup !== undefined) {
        output = (output + chunk).slice(-OUTPUT_KEPT);
        return;
      }
      output += chunk;
      const match = pattern.exec(output);
      if (!match?.[1]) return;
      startup = output;
      output = '';
      clearTimeout(timer);
      resolve({
        child,
        base: match[1],
        output: () => `${startup ?? ''}${output}`,
        async stop() {
          stopping = true;
          child.kill('SIGTERM');
          await closed;
        },
      });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${output}`));
      // A process that ends while the run still uses it: what it said last, for the cause.
      if (!stopping) {
        console.error(
          `${command.join(' ')} ended (exit ${code}, signal ${signal}) while in use; its last output:`,
        );
        console.error(output.slice(-8000));
      }
    });
  });
}

/** Resident memory of a process now, in MiB (Linux). */
export function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Samples a process's RSS every 100 ms until stopped; returns the highest seen. */
export function sampleRss(pid: number): () => number {
  let peak = rssMiB(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssMiB(pid));
    } catch {
      // the process has gone
    }
  }, 100);
  return () => {
    clearInterval(timer);
    return peak;
  };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/** A warm-up second, then `seconds` of load from `connections` connections. */
export async function load(
  url: string,
  options: {
    seconds: number;
    connections: number;
    headers?: Record<string, string>;
    expect?: number;
    method?: 'GET' | 'POST';
    body?: string;
  },
): Promise<LoadResult> {
  const base = {
    url,
    connections: options.connections,
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    ...(options.body === undefined ? {} : { body: options.body }),
  };
  await autocannon({ ...base, duration: 1 });
  const run = await autocannon({ ...base, duration: options.seconds });
  const expected = options.expect ?? 200;
  // A 304 is the expected answer of a matched If-None-Match; anything else is not.
  const unexpected = expected === 200 ? run.non2xx : run['2xx'] + run['4xx'] + run['5xx'];
  return {
    rps: run.requests.average,
    p50: run.latency.p50,
    p99: run.latency.p99,
    non2xx: unexpected,
    errors: run.errors + run.timeouts,
  };
}

/** The highest event-loop delay the server saw since the previous scrape, in ms. */
export async function eventLoopMaxMs(manage: { base: string; token: string }): Promise<number> {
  const headers = { authorization: `Bearer ${manage.token}` };
  const text = await (await fetch(`${manage.base}/metrics`, { headers })).text();
  const value = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text)?.[1];
  return value === undefined ? Number.NaN : Number(value) * 1000;
}

/** A warm-up second, then `seconds` of GETs from `connections` connections, each request with the next of `cookies` (browsers with sessions). */
export async function loadWithCookies(
  url: string,
  cookies: readonly string[],
  options: { seconds: number; connections: number },
): Promise<LoadResult> {
  let n = 0;
  const run = (duration: number) =>
    autocannon({
      url,
      connections: options.connections,
      duration,
      requests: [
        {
          method: 'GET',
          setupRequest: (request) => ({
            ...request,
            headers: { cookie: cookies[n++ % cookies.length] as string },
          }),
        },
      ],
    });
  await run(1);
  const result = await run(options.seconds);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

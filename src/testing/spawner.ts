import { type ChildProcess, spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** A process started by this fork's spawner: what the tests use of a ChildProcess. */
export interface Started extends EventEmitter {
  readonly pid: number | undefined;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly stdout: Readable;
  readonly stderr: Readable;
  kill(signal?: NodeJS.Signals): boolean;
}

type Message =
  | { op: 'spawned'; id: number; pid: number }
  | { op: 'error'; id: number; message: string; code?: string }
  | { op: 'data'; id: number; stream: 'stdout' | 'stderr'; chunk: Buffer }
  | { op: 'close'; id: number; code: number | null; signal: NodeJS.Signals | null };

class RemoteChild extends EventEmitter implements Started {
  pid: number | undefined;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  private ended = false;
  readonly stdout = new Readable({ read() {} });
  readonly stderr = new Readable({ read() {} });
  constructor(
    private readonly id: number,
    private readonly spawner: ChildProcess,
  ) {
    super();
  }
  kill(signal: NodeJS.Signals = 'SIGTERM') {
    if (this.ended) return false;
    this.spawner.send({ op: 'kill', id: this.id, signal });
    return true;
  }
  /** The child has gone and its output with it: 'exit', then 'close' once its output is read. */
  async closed(code: number | null, signal: NodeJS.Signals | null) {
    this.ended = true;
    this.exitCode = code;
    this.signalCode = signal;
    const ends = [this.stdout, this.stderr].map((stream) => {
      stream.push(null);
      return stream.readableFlowing ? new Promise((resolve) => stream.once('end', resolve)) : undefined;
    });
    this.emit('exit', code, signal);
    await Promise.all(ends);
    this.emit('close', code, signal);
  }
}

let spawner: ChildProcess | undefined;
const running = new Map<number, RemoteChild>();
let nextId = 0;

/**
 * The spawner holds this process open while a process it started runs, as that process
 * would if this one had started it (a bench waiting on `dealroom migrate` has nothing else
 * open), and not when none does: it ends when this process does.
 */
function holdOpen(): void {
  if (running.size > 0) spawner?.channel?.ref();
  else spawner?.channel?.unref();
}

/** This process's spawner, started the first time it is needed (holdOpen says when it keeps it open). */
function spawnerProcess(): ChildProcess {
  if (spawner) return spawner;
  const started = spawn(process.execPath, [fileURLToPath(new URL('./spawner.mjs', import.meta.url))], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  started.on('message', (message: Message) => {
    const child = running.get(message.id);
    if (!child) return;
    if (message.op === 'spawned') {
      child.pid = message.pid;
      child.emit('spawn');
    } else if (message.op === 'data') {
      child[message.stream].push(Buffer.from(message.chunk));
    } else if (message.op === 'error') {
      running.delete(message.id);
      holdOpen();
      child.emit('error', Object.assign(new Error(message.message), { code: message.code }));
    } else {
      running.delete(message.id);
      holdOpen();
      void child.closed(message.code, message.signal);
    }
  });
  started.on('exit', (code, signal) => {
    spawner = undefined;
    // Should it ever end first, what it ran ends with it, as far as the tests can tell.
    for (const child of running.values()) void child.closed(null, signal ?? 'SIGKILL');
    running.clear();
    if (code !== 0) console.error(`the test spawner exited with ${code ?? signal}`);
  });
  // Its channel alone decides whether it holds this process open (holdOpen).
  started.unref();
  spawner = started;
  return started;
}

/**
 * Starts COMMAND with ARGS in ENV (stdin closed, stdout and stderr piped), as `spawn` would,
 * from this fork's small spawner process instead of the fork itself.
 */
export function spawnSmall(command: string, args: string[], env: NodeJS.ProcessEnv): Started {
  const via = spawnerProcess();
  const id = ++nextId;
  const child = new RemoteChild(id, via);
  running.set(id, child);
  holdOpen();
  via.send({ op: 'spawn', id, command, args, env });
  return child;
}

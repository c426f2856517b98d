// Starts processes for a test fork, over IPC (testing/spawner.ts). A fork holds a gigabyte or
// two by the middle of a run, and every process it starts itself copies that much of page
// table first (a tenth of a second of CPU each, hundreds of times a run); this process stays
// small. It relays each child's output and end, and the signals sent to it; it exits with
// its fork, and takes its children along.
import { spawn } from 'node:child_process';

const children = new Map();
const send = (message) => process.connected && process.send(message);

process.on('message', (message) => {
  if (message.op === 'kill') {
    children.get(message.id)?.kill(message.signal);
    return;
  }
  const { id, command, args, env } = message;
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.set(id, child);
  child.on('spawn', () => send({ op: 'spawned', id, pid: child.pid }));
  child.on('error', (error) => send({ op: 'error', id, message: error.message, code: error.code }));
  for (const stream of ['stdout', 'stderr']) {
    child[stream].on('data', (chunk) => send({ op: 'data', id, stream, chunk }));
  }
  child.on('close', (code, signal) => {
    children.delete(id);
    send({ op: 'close', id, code, signal });
  });
});

process.on('disconnect', () => {
  for (const child of children.values()) child.kill('SIGKILL');
  process.exit(0);
});

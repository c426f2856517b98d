import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time may open an embedded store's folder: PGlite is a single-process
 * database. The lock file names the holder and, when it is a server, the control socket
 * through which other commands can be run by it.
 */
export interface LockHolder {
  pid: number;
  socket?: string;
}

export class StoreBusyError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the embedded store in ${dataDir} is in use by process ${holder.pid}; stop it first, or use PostgreSQL (DATABASE_URL) to run several processes`,
    );
  }
}

export interface DataDirLock {
  holder(): LockHolder;
  /** Records the control socket of the server holding the lock. */
  setSocket(socket: string): void;
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, 'dealroom.lock');
  const current = readHolder(file);
  if (current && current.pid !== process.pid && isAlive(current.pid)) {
    throw new StoreBusyError(dataDir, current);
  }
  let holder: LockHolder = { pid: process.pid };
  const write = () => writeFileSync(file, JSON.stringify(holder), { mode: 0o600 });
  write();
  return {
    holder: () => holder,
    setSocket(socket) {
      holder = { ...holder, socket };
      write();
    },
    release() {
      if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    return typeof parsed.pid === 'number' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

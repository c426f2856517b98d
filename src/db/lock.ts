import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One process at a time may open an embedded store's folder: PGlite is a single-process
 * database. The lock file is created atomically (O_EXCL), mode 0600, inside the 0700 data
 * folder. It names the holder and, when it is a server, the control socket through which
 * other commands can be run by it, with the secret that socket asks for: only a process of
 * the same user can read it.
 */
export interface LockHolder {
  pid: number;
  socket?: string;
  secret?: string;
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
  /** Records the control socket of the server holding the lock, and a new secret for it. */
  setSocket(socket: string): string;
  release(): void;
}

export const LOCK_FILE = 'dealroom.lock';

export function lockDataDir(dataDir: string): DataDirLock {
  const file = join(dataDir, LOCK_FILE);
  let holder: LockHolder = { pid: process.pid };
  acquire(file, dataDir, JSON.stringify(holder));
  return {
    holder: () => holder,
    setSocket(socket) {
      const secret = randomBytes(32).toString('base64url');
      holder = { ...holder, socket, secret };
      writeFileSync(file, JSON.stringify(holder), { mode: 0o600 });
      return secret;
    },
    release() {
      if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

/** Creates the lock file, or takes over one left by a process that no longer runs. */
function acquire(file: string, dataDir: string, content: string): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      try {
        writeSync(fd, content);
      } finally {
        closeSync(fd);
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const current = readHolder(file);
    if (current && current.pid !== process.pid && isAlive(current.pid)) {
      throw new StoreBusyError(dataDir, current);
    }
    // Stale (its process is gone) or unreadable: remove it and try once more. Two processes
    // doing this at once both retry O_EXCL, and exactly one of them wins.
    rmSync(file, { force: true });
  }
  const current = readHolder(file);
  throw new StoreBusyError(dataDir, current ?? { pid: 0 });
}

export function readHolder(file: string): LockHolder | undefined {
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

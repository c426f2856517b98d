import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  ftruncateSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  type Stats,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';

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
  // The file is written only through the descriptor that created it: a path swapped for a
  // symlink afterwards leads nowhere.
  const fd = acquire(file, dataDir, JSON.stringify(holder));
  return {
    holder: () => holder,
    setSocket(socket) {
      const secret = randomBytes(32).toString('base64url');
      holder = { ...holder, socket, secret };
      ftruncateSync(fd, 0);
      writeSync(fd, JSON.stringify(holder), 0);
      return secret;
    },
    release() {
      closeSync(fd);
      if (readHolder(file)?.pid === process.pid) rmSync(file, { force: true });
    },
  };
}

/** Creates the lock file (its descriptor kept), or takes over one left by a process that no longer runs. */
function acquire(file: string, dataDir: string, content: string): number {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(
        file,
        constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
        0o600,
      );
      writeSync(fd, content);
      return fd;
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

/**
 * The lock's holder, as far as it can be trusted: the lock must be a regular file of this
 * user's, 0600 (not a symlink, not another user's plant), and the socket it names must be
 * this folder's own control socket, a socket of this user's; otherwise the socket and its
 * secret are left out, and no command is sent there.
 */
export function readHolder(file: string): LockHolder | undefined {
  try {
    if (!isOwnPrivate(file, (stat) => stat.isFile())) return undefined;
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    if (typeof parsed.pid !== 'number') return undefined;
    const socket = parsed.socket;
    const ownSocket =
      typeof socket === 'string' &&
      dirname(socket) === dirname(file) &&
      basename(socket) === CONTROL_SOCKET &&
      isOwnPrivate(socket, (stat) => stat.isSocket(), false);
    return ownSocket ? parsed : { pid: parsed.pid };
  } catch {
    return undefined;
  }
}

/** The control socket's name inside the data folder (control.ts). */
export const CONTROL_SOCKET = 'control.sock';

function isOwnPrivate(path: string, kind: (stat: Stats) => boolean, missing?: boolean): boolean {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (err) {
    if (missing !== undefined && (err as NodeJS.ErrnoException).code === 'ENOENT') return missing;
    throw err;
  }
  const uid = process.geteuid?.();
  return kind(stat) && (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
}

/** Whether a process of that id runs (one of another user's counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

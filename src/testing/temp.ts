import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isAlive } from '../db/lock.ts';

const made: string[] = [];

/** A new folder under the system's temp folder, removed when the test file is done. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `dealroom-${name}-`));
  made.push(dir);
  return dir;
}

/** Removes every folder tempDir made so far: after each test file (testing/each-file.ts). */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** What a run's temp folder is named: this, the pid of the run's main process, and random letters. */
const RUN_FOLDER = 'dealroom-test-run-';

/** A RAM-backed folder is used for a run's temp files only with at least this much free in it. */
const RAM_FOLDER_MIN_FREE = 2 * 1024 ** 3;

/**
 * The temp folder of a whole test run, made by the global setup and removed after it (the
 * `remove` returned): TEST_TMPDIR when set, else a folder in /dev/shm when that is a RAM-backed
 * file system with room to spare, else none (the system's temp folder stays). The run copies
 * and deletes a 40 MB embedded store folder of 1,161 files dozens of times, and its embedded
 * processes sync their writes: on a RAM-backed folder a copy and its removal cost about a
 * tenth of the CPU they cost on a disk's ext4, and a sync nothing (the whole run took 0.92 of
 * its CPU). What the tests check of the files is the same on either.
 */
export function runTempFolder(base = process.env.TEST_TMPDIR || ramFolder()): {
  path: string | undefined;
  remove: () => void;
} {
  if (!base) return { path: undefined, remove: () => undefined };
  removeAbandoned(base);
  const path = mkdtempSync(join(base, `${RUN_FOLDER}${process.pid}-`));
  // Others may pass through to a folder of their own, as in /tmp (the PostgreSQL server a
  // recovery test starts runs as its own user); each test's folder is its owner's alone.
  chmodSync(path, 0o711);
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * The temp folders in `base` of runs whose process has gone without removing them (stopped
 * hard): a folder in RAM holds its memory until it is removed.
 */
function removeAbandoned(base: string): void {
  const named = new RegExp(`^${RUN_FOLDER}(\\d+)-`);
  for (const name of readdirSync(base)) {
    const pid = Number(named.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    // Another user's (in a shared TEST_TMPDIR) stays.
    try {
      rmSync(join(base, name), { recursive: true, force: true });
    } catch {}
  }
}

/** /dev/shm when it is a tmpfs with RAM_FOLDER_MIN_FREE free; undefined otherwise. */
function ramFolder(): string | undefined {
  const TMPFS_MAGIC = 0x01021994;
  try {
    const stats = statfsSync('/dev/shm');
    return stats.type === TMPFS_MAGIC && stats.bavail * stats.bsize >= RAM_FOLDER_MIN_FREE
      ? '/dev/shm'
      : undefined;
  } catch {
    return undefined;
  }
}

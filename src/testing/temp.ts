import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

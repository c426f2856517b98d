import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

// Imported by a test file, this registers one clean-up for that file's folders.
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new folder under the system's temp folder, removed when the test file is done. */
export function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `dealroom-${name}-`));
  made.push(dir);
  return dir;
}

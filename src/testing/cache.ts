import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The test run's folder `name` under node_modules/.cache, made when missing: under
 * node_modules, code kept there resolves packages as the sources do.
 */
export function cacheFolder(name: string): string {
  const folder = join(PROJECT_ROOT, 'node_modules', '.cache', name);
  mkdirSync(folder, { recursive: true });
  return folder;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { THREAD_BUNDLES_ENV, THREAD_ENTRIES } from '../core/threads.ts';
import { cacheFolder, PROJECT_ROOT } from './cache.ts';

/**
 * The threads' entries bundled from the sources once per run, each with the project's modules
 * it imports (packages stay imports), so that a thread started by a test loads one JavaScript
 * file instead of registering tsx and compiling its sources again: most of a second of CPU per
 * thread, for the hundred-odd threads a run starts. Kept under node_modules so that the
 * bundles resolve packages as the sources do; the folder goes with the run.
 */
export async function bundleThreads(): Promise<{ env: Record<string, string>; remove: () => void }> {
  const dir = mkdtempSync(join(cacheFolder('dealroom-threads'), 'run-'));
  await build({
    absWorkingDir: PROJECT_ROOT,
    entryPoints: Object.fromEntries(
      Object.entries(THREAD_ENTRIES).map(([name, path]) => [name, `src/${path}.ts`]),
    ),
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    logLevel: 'error',
  });
  return { env: { [THREAD_BUNDLES_ENV]: dir }, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

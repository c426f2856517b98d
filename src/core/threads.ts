import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * A folder of thread entries already bundled to JavaScript (`<name>.mjs`), used by a service
 * running from its TypeScript sources instead of compiling them through tsx in every thread.
 * The test run's setup makes one (testing/thread-bundles.ts); a build never reads it.
 */
export const THREAD_BUNDLES_ENV = 'DEALROOM_THREAD_BUNDLES';

/**
 * Every module the service starts as a thread, by the name its spawner asks for, and its path
 * under src/ (and dist/) without extension: the bundles are made from this list, the build's
 * (scripts/bundle.mjs) and the test run's (testing/thread-bundles.ts).
 */
export const THREAD_ENTRIES = {
  'pglite-thread': 'db/pglite-thread',
  'view-thread-entry': 'tracking/view-thread-entry',
  task: 'rendering/task',
} as const;

/**
 * The entry of the thread module `name` beside `from` (an `import.meta.url`) when the caller
 * runs from source and a bundle of it is at hand; undefined otherwise.
 */
export function threadBundle(from: string, name: string): URL | undefined {
  const dir = process.env[THREAD_BUNDLES_ENV];
  return from.endsWith('.ts') && dir ? pathToFileURL(join(dir, `${name}.mjs`)) : undefined;
}

/**
 * A thread (node:worker_threads) running the module `name` beside `from` (an `import.meta.url`): its
 * compiled `.js` in a build (dist/bundle holds each thread entry beside the chunks that spawn
 * it); from source (the test runner), its bundle (threadBundle), or else its `.ts` source
 * through tsx.
 */
export function spawnModuleThread(from: string, name: string, workerData: unknown): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), { workerData });
  const bundled = threadBundle(from, name);
  if (bundled) return new Worker(bundled, { workerData });
  const file = new URL(`./${name}.ts`, from).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

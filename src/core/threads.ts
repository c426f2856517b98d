import { Worker } from 'node:worker_threads';

/**
 * A thread (node:worker_threads) running the module `name` beside `from` (an `import.meta.url`): its
 * compiled `.js` in a build, or its `.ts` source through tsx when the caller itself runs
 * from source (the test runner, which runs from the project's root).
 */
export function spawnModuleThread(from: string, name: string, workerData: unknown): Worker {
  if (!from.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, from), { workerData });
  const file = new URL(`./${name}.ts`, from).href;
  const boot = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(file)}); })`;
  return new Worker(boot, { eval: true, workerData });
}

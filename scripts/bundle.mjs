#!/usr/bin/env node
/**
 * The second half of `npm run build`: the compiled service in dist/ bundled into
 * dist/bundle/, which `bin/dealroom.mjs` runs. One file per entry (the command, and each
 * module the service starts as a thread), the modules they share in chunks, every command's
 * own modules loaded only when it runs. `dealroom serve` then opens about 300 JavaScript and
 * JSON files instead of about 1,500, and starts on about 40% less CPU.
 *
 * dist/bundle sits two folders below the project, as every compiled module does (dist/db,
 * dist/web...), so the paths the modules make from `import.meta.url` (../../migrations/,
 * ../../public/, ../../package.json) and the packages they resolve name the same files. A
 * package is bundled unless it finds its own files on disk, loads native code, or starts its
 * own threads: those stay imports of node_modules (EXTERNAL), and the build fails if a
 * bundled one refers to __dirname or __filename, which an ES module does not have.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { THREAD_ENTRIES } from '../dist/core/threads.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'dist/bundle');

/** The command, and the modules started as threads, each bundled under the name its spawner asks for. */
const ENTRIES = {
  main: 'dist/cli/main.js',
  ...Object.fromEntries(Object.entries(THREAD_ENTRIES).map(([name, path]) => [name, `dist/${path}.js`])),
};

const EXTERNAL = [
  // WebAssembly, data files and fonts found beside their own modules.
  '@electric-sql/pglite',
  'pdfjs-dist',
  'dejavu-fonts-ttf',
  // Native code.
  '@napi-rs/canvas',
  // Their own threads and worker files.
  'piscina',
  'pino',
  'pino-pretty',
  'thread-stream',
  // Read their own package.json, or trim stacks by their folder, through __dirname.
  'ioredis',
  '@fastify/swagger',
  '@scalar/fastify-api-reference',
];

rmSync(OUT, { recursive: true, force: true });
await build({
  absWorkingDir: ROOT,
  entryPoints: ENTRIES,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  outdir: OUT,
  sourcemap: 'linked',
  logLevel: 'warning',
  // The CommonJS packages bundled call require() for Node's modules and optional ones.
  banner: {
    js: "import { createRequire as __bundleRequire } from 'node:module';\nconst require = __bundleRequire(import.meta.url);",
  },
});

const stray = readdirSync(OUT)
  .filter((name) => name.endsWith('.js'))
  .filter((name) => /\b__(dirname|filename)\b/.test(readFileSync(join(OUT, name), 'utf8')));
if (stray.length > 0) {
  console.error(
    `bundle: ${stray.join(', ')} refer to __dirname or __filename; add the package that does to EXTERNAL in scripts/bundle.mjs`,
  );
  process.exit(1);
}

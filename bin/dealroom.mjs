#!/usr/bin/env node
// The `dealroom` command: the service compiled to dist/ and bundled into dist/bundle/
// (`npm run build`, scripts/bundle.mjs; `npm start` and `npm test` build first;
// scripts/release.sh makes a production copy), run by plain node. Nothing is compiled at run
// time, so nothing is read from a shared cache folder.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error(
    'dealroom: the service is not built yet; run `npm run build` (for production: scripts/release.sh)',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));

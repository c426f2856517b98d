import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SPAWNER = fileURLToPath(new URL('./spawner.ts', import.meta.url));

/**
 * A plain node process (not a test fork, whose own channel keeps it open: a bench, say) that
 * starts a process through the spawner, waits for it, and prints what it said and its code.
 */
function runAlone(childScript: string) {
  const script = `
    import { spawnSmall } from ${JSON.stringify(SPAWNER)};
    const child = spawnSmall(process.execPath, ['-e', ${JSON.stringify(childScript)}], process.env);
    let out = '';
    child.stdout.on('data', (chunk) => { out += chunk; });
    child.on('close', (code) => console.log(JSON.stringify({ out, code })));
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 20_000,
  });
}

describe('the test spawner', () => {
  it('holds the process that uses it open while what it started runs, and lets it end after', () => {
    const started = Date.now();
    const result = runAlone("setTimeout(() => { console.log('done'); process.exit(3); }, 500)");
    // Without the hold, the process ends at once (13: its top level has nothing left open).
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ out: 'done\n', code: 3 });
    // It did not stay open once the started process had ended (spawnSync's timeout is 20 s).
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTempFolder, tempDir } from './temp.ts';

describe("a run's temp folder", () => {
  it('is made in the base given, passable by others, removed after; folders of runs gone are removed first', () => {
    const base = tempDir('run-base');
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const abandoned = join(base, `dealroom-test-run-${gone}-abc123`);
    const running = join(base, `dealroom-test-run-${process.pid}-def456`);
    const other = join(base, 'dealroom-test-run-x');
    for (const folder of [abandoned, running, other]) mkdirSync(join(folder, 'inside'), { recursive: true });

    const run = runTempFolder(base);
    expect(run.path).toMatch(new RegExp(`^${base}/dealroom-test-run-${process.pid}-`));
    expect(statSync(run.path as string).mode & 0o777).toBe(0o711);
    expect([existsSync(abandoned), existsSync(running), existsSync(other)]).toEqual([false, true, true]);
    run.remove();
    expect(existsSync(run.path as string)).toBe(false);
  });
});

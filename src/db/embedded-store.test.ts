import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, dealroom, startServer } from '../testing/process.ts';
import { migratedStoreFolder } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

/**
 * The embedded store's folder as another local user would probe it: modes, the lock, the
 * control socket, and a damaged store. Real `dealroom` processes throughout.
 */
describe('embedded store privacy and integrity', () => {
  const root = tempDir('store');
  const envFor = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '' });

  /** Runs `dealroom ARGS` under a given umask. */
  const withUmask = (umask: string, args: string[], env: Record<string, string>) =>
    new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn('sh', ['-c', `umask ${umask}; exec "$0" "$@"`, process.execPath, BIN, ...args], {
        env: { ...process.env, ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => {
        stderr += c;
      });
      child.on('close', (code) => resolve({ code, stderr }));
    });

  const modes = (dir: string): string[] => {
    const found: string[] = [];
    const walk = (path: string) => {
      const mode = statSync(path).mode;
      found.push(`${(mode & 0o777).toString(8)} ${path.slice(dir.length) || '/'}`);
      if (statSync(path).isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
    };
    walk(dir);
    return found;
  };

  it('creates the folder 0700 and every file 0600, even under umask 000', async () => {
    const dataDir = join(root, 'fresh');
    const result = await withUmask('000', ['migrate'], envFor(dataDir));
    expect(result.code, result.stderr).toBe(0);
    const all = modes(dataDir);
    expect(all.length).toBeGreaterThan(100);
    const open = all.filter((line) => !/^(700|600) /.test(line));
    expect(open).toEqual([]);
  });

  it('refuses a folder that group or others can reach, saying what to run', async () => {
    const dataDir = join(root, 'open');
    mkdirSync(dataDir, { mode: 0o700 });
    chmodSync(dataDir, 0o755);
    const result = await dealroom(['migrate'], envFor(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`chmod 700 ${dataDir}`);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('refuses a store with PG_VERSION gone instead of opening it empty', async () => {
    const dataDir = join(root, 'damaged');
    migratedStoreFolder(dataDir);
    rmSync(join(dataDir, 'pgdata', 'PG_VERSION'));
    const result = await dealroom(['migrate'], envFor(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${join(dataDir, 'pgdata')} is not a complete store`);
    expect(result.stderr).toContain('Restore');
    expect(existsSync(join(dataDir, 'pgdata', 'PG_VERSION'))).toBe(false);
  });

  it('names the folder when the store cannot be opened, instead of a WebAssembly abort', async () => {
    const dataDir = join(root, 'corrupt');
    migratedStoreFolder(dataDir);
    writeFileSync(join(dataDir, 'pgdata', 'global', 'pg_control'), 'not a control file');
    const result = await dealroom(['migrate'], envFor(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the embedded store in ${join(dataDir, 'pgdata')} could not be opened`);
    expect(result.stderr).not.toContain('-sASSERTIONS');
  });

  it('says so when DATA_DIR is a file', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'not a folder');
    const result = await dealroom(['migrate'], envFor(file));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`DATA_DIR ${file} is a file, not a folder`);
    expect(result.stderr).not.toContain('chmod');
  });

  it.runIf(process.geteuid?.() === 0)('refuses a DATA_DIR that another user owns, even at 0700', async () => {
    const dataDir = join(root, 'theirs');
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, 65534, 65534);
    const result = await dealroom(['migrate'], envFor(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${dataDir} belongs to another user (uid 65534)`);
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it("sends nothing to a socket a planted lock names: only its own folder's socket is trusted", async () => {
    const dataDir = join(root, 'planted');
    migratedStoreFolder(dataDir);
    const evil = join(tempDir('evil'), 'evil.sock');
    let contacted = false;
    const listener = createNetServer((socket) => {
      contacted = true;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(evil, resolve));
    try {
      // A live process (this one) holding the lock, and a socket of someone else's choosing.
      writeFileSync(
        join(dataDir, 'dealroom.lock'),
        JSON.stringify({ pid: process.pid, socket: evil, secret: 'chosen' }),
        { mode: 0o600 },
      );
      const result = await dealroom(
        ['keys', 'create', '--team', '00000000-0000-4000-8000-000000000001'],
        envFor(dataDir),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`is in use by process ${process.pid}`);
      expect(result.stdout).toBe('');
      expect(contacted).toBe(false);
    } finally {
      listener.close();
      rmSync(join(dataDir, 'dealroom.lock'), { force: true });
    }
  });

  it('refuses a folder that holds something else and no store', async () => {
    const dataDir = join(root, 'elsewhere');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'notes.txt'), 'mine');
    const result = await dealroom(['migrate'], envFor(dataDir));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('holds no store');
  });

  it('lets exactly one of several processes starting at once take the lock', async () => {
    const dataDir = join(root, 'race');
    mkdirSync(dataDir, { mode: 0o700 });
    const lockModule = new URL('./lock.ts', import.meta.url).pathname;
    // A winner holds the lock until every contender has tried (however slowly a loaded
    // machine starts them): the parent ends it once all six have answered.
    const script = `const { lockDataDir } = await import(${JSON.stringify(lockModule)});
      try { lockDataDir(${JSON.stringify(dataDir)}); console.log('won'); setInterval(() => {}, 1000); }
      catch { console.log('lost'); }`;
    const children: ReturnType<typeof spawn>[] = [];
    const contenders = Array.from(
      { length: 6 },
      () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          children.push(child);
          let out = '';
          child.stdout?.on('data', (c) => {
            out += c;
            if (out.includes('\n')) resolve(out.trim());
          });
          child.on('close', () => resolve(out.trim()));
        }),
    );
    const outcomes = await Promise.all(contenders).finally(() => {
      for (const child of children) child.kill();
    });
    expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'lost')).toHaveLength(5);
  });

  // Five real processes, each booting the embedded store from disk: seconds each on a loaded machine.
  it('keeps its control socket in the folder, 0600, answering only callers with the secret', {
    timeout: 120_000,
  }, async () => {
    const dataDir = join(root, 'served');
    const team = join(root, 'team.ndjson');
    writeFileSync(team, '{"type":"team","id":"00000000-0000-4000-8000-000000000001","name":"x"}\n');
    migratedStoreFolder(dataDir);
    expect((await dealroom(['import', team], envFor(dataDir))).code).toBe(0);
    // Something planted where the socket goes does not stop the server.
    writeFileSync(join(dataDir, 'control.sock'), 'planted');
    const server = await startServer([], envFor(dataDir));
    try {
      const socket = join(dataDir, 'control.sock');
      expect(statSync(socket).isSocket()).toBe(true);
      expect(statSync(socket).mode & 0o777).toBe(0o600);
      const status = await new Promise<number | undefined>((resolve) => {
        const req = request({ socketPath: socket, method: 'POST', path: '/run' }, (res) => {
          res.resume();
          resolve(res.statusCode);
        });
        req.on('error', () => resolve(undefined));
        req.end(
          JSON.stringify({ args: ['keys', 'create', '--team', '00000000-0000-4000-8000-000000000001'] }),
        );
      });
      expect(status).toBe(403);
      // The real CLI reads the secret from the lock file and is served.
      const listed = await dealroom(
        ['keys', 'list', '--team', '00000000-0000-4000-8000-000000000001'],
        envFor(dataDir),
      );
      expect(listed.code, listed.stderr).toBe(0);
      // An import is not run inside the server: it would hold the API for its whole length.
      const file = join(root, 'one.ndjson');
      writeFileSync(file, '{"type":"team","id":"00000000-0000-4000-8000-000000000009","name":"x"}\n');
      const imported = await dealroom(['import', file], envFor(dataDir));
      expect(imported.code).toBe(1);
      expect(imported.stderr).toContain('Stop the server, import, then start it again');
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

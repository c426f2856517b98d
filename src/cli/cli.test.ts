import { spawnSync } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { delimiter, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/index.js';
import { systemClock } from '../core/clock.ts';
import { openStore } from '../db/open.ts';
import { KEY_CACHE_MS } from '../http/auth.ts';
import { createApiKey } from '../keys/commands.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { SHUTDOWN_GRACE_MS } from '../server.ts';
import { load, make } from '../testing/fixtures.ts';
import { BIN, COMMAND, dealroom, type Server, startServer, startWorkerProcess } from '../testing/process.ts';
import { startReceiver, until } from '../testing/receiver.ts';
import { freshStoreEnv, storeKinds } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

/** A running process's environment, one `NAME=value` an entry. */
const environOf = (pid: number | undefined) => readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');

// Every step here starts a real process (and, on the embedded store, boots PGlite in it),
// which takes seconds on a loaded two-core machine.
describe.each(storeKinds())('dealroom CLI (%s store)', { timeout: 120_000 }, (kind) => {
  let env: Record<string, string>;
  let drop: () => Promise<void>;
  const team = make.team({ name: 'CLI team' });
  const room = make.room(team.id as string, { name: 'CLI room' });

  beforeAll(async () => {
    ({ env, drop } = await freshStoreEnv(kind));
    env.APP_URL = 'https://share.example.test/';
  });
  afterAll(async () => {
    await drop();
  });

  it('migrates, imports, creates keys and serves them; data survives a restart', async () => {
    expect((await dealroom(['migrate'], env)).stdout).toContain('applied 001_initial');
    expect((await dealroom(['migrate'], env)).stdout).toContain('up to date');

    const file = join(tempDir('file'), 'data.json');
    writeFileSync(
      file,
      JSON.stringify({
        teams: [team],
        dealRooms: [room],
        links: [make.link(room.id as string, { shortId: 'abc' })],
      }),
    );
    const imported = await dealroom(['import', file], env);
    expect(imported.code).toBe(0);
    expect(imported.stdout).toMatch(
      /^imported 1 team, 1 dealRoom, 0 documents, 1 link, 0 visits, 0 views, 0 downloads in/,
    );

    const created = await dealroom(['keys', 'create', '--team', team.id as string, '--name', 'ci'], env);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^dr_live_[A-Za-z0-9]{38}$/);

    const listed = await dealroom(['keys', 'list', '--team', team.id as string], env);
    expect(listed.stdout).toContain(key.slice(0, 12));
    expect(listed.stdout).not.toContain(key);

    for (let round = 0; round < 2; round++) {
      const server = await startServer([], env);
      const res = await fetch(`${server.base}/v1/deal-rooms/${room.id}/links`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { data: { url: string }[] };
      expect(body.data[0]?.url).toBe('https://share.example.test/v/abc');
      expect(await server.stop()).toBe(0);
    }
  });

  it('starts the management API only with ADMIN_TOKEN', async () => {
    const plain = await startServer([], env);
    try {
      // The launcher (bin/dealroom) became node itself, with glibc's trim threshold held.
      expect(readlinkSync(`/proc/${plain.child.pid}/exe`)).toBe(realpathSync(process.execPath));
      expect(environOf(plain.child.pid)).toContain('MALLOC_TRIM_THRESHOLD_=131072');
      expect(plain.output()).not.toMatch(/Management API/);
      expect((await fetch(`${plain.base}/metrics`)).status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  // One server for the steps that only need one running; the store admits one at a time.
  describe('while serve runs with ADMIN_TOKEN', () => {
    const token = 'a-long-enough-admin-token';
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    let server: Server;
    let manage: string;
    beforeAll(async () => {
      expect((await dealroom(['migrate'], env)).code).toBe(0);
      server = await startServer([], {
        ...env,
        ADMIN_TOKEN: token,
        MANAGEMENT_PORT: '0',
        MALLOC_TRIM_THRESHOLD_: '262144',
      });
      manage = /Management API listening on (http:\/\/\S+)/.exec(server.output())?.[1] ?? '';
    });
    afterAll(async () => {
      if (server?.child.exitCode === null) await server.stop();
    });
    /** A management API POST, as JSON, with the admin token. */
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${manage}${path}`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { data: { id: string } } };
    };

    it('serves the management API on its own port, with /metrics there', async () => {
      expect(environOf(server.child.pid)).toContain('MALLOC_TRIM_THRESHOLD_=262144');
      expect(manage).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const created = await fetch(`${manage}/teams`, { method: 'POST', headers, body: '{"name":"Live"}' });
      expect(created.status).toBe(201);
      expect((await fetch(`${manage}/teams`, { method: 'POST', body: '{}' })).status).toBe(401);
      const metrics = await fetch(`${manage}/metrics`, { headers });
      expect(await metrics.text()).toMatch(/^dealroom_writes_total\{route="POST \/teams"\} 1$/m);
      expect((await fetch(`${manage}/openapi.json`)).status).toBe(401);
      // Read to the end: a response left unread holds the connection, and so the shutdown.
      const spec = await fetch(`${manage}/openapi.json`, { headers });
      expect(spec.status).toBe(200);
      expect((await spec.json()).openapi).toMatch(/^3\./);
    });

    it('records view starts arriving together through serve, and the read API counts each at once', async () => {
      const teamId = (await post('/teams', { name: 'Tracked' })).body.data.id;
      const key = ((await post(`/teams/${teamId}/keys`, {})).body.data as unknown as { key: string }).key;
      const roomId = (await post(`/teams/${teamId}/deal-rooms`, { name: 'Live room' })).body.data.id;
      const documentId = (
        await post(`/deal-rooms/${roomId}/documents`, { name: 'Deck', status: 'published' })
      ).body.data.id;
      const linkId = (await post(`/deal-rooms/${roomId}/links`, { name: 'Investors' })).body.data.id;
      const starts = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          post(`/links/${linkId}/views`, { documentId, viewer: { email: `viewer${i % 25}@example.com` } }),
        ),
      );
      expect(starts.map((s) => s.status)).toEqual(Array(40).fill(201));
      expect(new Set(starts.map((s) => s.body.data.id)).size).toBe(40);
      const refused = await post(`/links/${linkId}/views`, {
        documentId: linkId,
        viewer: { visitorId: 'v' },
      });
      expect(refused).toEqual({
        status: 404,
        body: { error: 'Document not found on this link', code: 'not_found' },
      });

      const room = await fetch(`${server.base}/v1/deal-rooms/${roomId}`, { headers: { 'x-api-key': key } });
      expect((await room.json()).data).toMatchObject({ totalViews: 40, uniqueViewers: 25 });
      const metrics = await (await fetch(`${manage}/metrics`, { headers })).text();
      expect(metrics).toMatch(/^dealroom_events_recorded_total\{type="view.started"\} 40$/m);
      expect(metrics).toMatch(/^dealroom_events_recorded_total\{type="viewer.created"\} 25$/m);
    });

    it('stores a document file from the command line while serve runs (pages counted; a text file refused, nothing changed)', async () => {
      const created = async (path: string, body: unknown) => (await post(path, body)).body.data.id;
      const teamId = await created('/teams', { name: 'Files' });
      const roomId = await created(`/teams/${teamId}/deal-rooms`, { name: 'Files room' });
      const documentId = await created(`/deal-rooms/${roomId}/documents`, {
        name: 'Deck',
        status: 'published',
      });
      const folder = tempDir('upload');
      writeFileSync(join(folder, 'deck.pdf'), await numberedPdf(4));
      writeFileSync(join(folder, 'notes.txt'), 'not a document');
      // A path relative to where the command runs, as a person types it.
      const uploaded = await dealroom(
        ['documents', 'upload', documentId, relative(process.cwd(), join(folder, 'deck.pdf'))],
        env,
      );
      expect(uploaded.stderr).toMatch(/stored \d+ bytes \(application\/pdf\) as the content of Deck/);
      expect(uploaded).toMatchObject({ code: 0, stdout: '4 pages\n' });
      const refused = await dealroom(['documents', 'upload', documentId, join(folder, 'notes.txt')], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('The file must be a PDF, PNG or JPEG');
      const missing = await dealroom(['documents', 'upload', documentId, join(folder, 'none.pdf')], env);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('none.pdf is not a file');
      const file = await fetch(`${manage}/documents/${documentId}/file`, { headers });
      expect(file.headers.get('content-type')).toBe('application/pdf');
      expect(
        Buffer.from(await file.arrayBuffer())
          .subarray(0, 5)
          .toString(),
      ).toBe('%PDF-');
      const pages = await fetch(`${manage}/documents/${documentId}/pages?period=all`, { headers });
      expect(((await pages.json()) as { data: { pageCount: number } }).data.pageCount).toBe(4);
    });

    it('revokes a key while the server runs: it fails within one second', async () => {
      const created = await dealroom(['keys', 'create', '--team', team.id as string], env);
      const key = created.stdout.trim();
      const get = () => fetch(`${server.base}/v1/deal-rooms`, { headers: { 'x-api-key': key } });
      expect((await get()).status).toBe(200);
      const id = /created key ([0-9a-f-]{36})/.exec(created.stderr)?.[1] ?? '';
      const revoked = await dealroom(['keys', 'revoke', id], env);
      expect(revoked.code).toBe(0);
      await new Promise((r) => setTimeout(r, KEY_CACHE_MS));
      const res = await get();
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: 'Invalid API key', code: 'unauthorized' });
    });

    it('stops at once, exit 0: requests refused by the token check do not hold it open', async () => {
      // Refused requests are counted like any other: the server stops as soon as its store is
      // closed, instead of waiting out its grace period for a connection it thinks has not
      // sent its request yet, and then cutting it (which it logs). How long closing the store
      // takes depends on the machine's disk and load (over 8 s once, with the whole suite
      // running on two slow cores): the grace period is the bound.
      const stopping = Date.now();
      expect(await server.stop()).toBe(0);
      expect(server.output()).not.toContain('grace period over');
      expect(Date.now() - stopping).toBeLessThan(SHUTDOWN_GRACE_MS);
    });
  });

  it('delivers webhooks from inside serve (not with --no-worker); dealroom webhooks manages them while it runs', async () => {
    const receiver = await startReceiver();
    const hooks = { ...env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_RETRY_BASE_MS: '50' };
    const token = 'a-long-enough-admin-token';
    const served = { ...hooks, ADMIN_TOKEN: token, MANAGEMENT_PORT: '0' };
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    try {
      let gone = true;
      receiver.on('/cli', () => (gone ? { status: 410 } : { status: 200 }));
      const added = await dealroom(
        ['webhooks', 'add', '--team', team.id as string, '--url', receiver.url('/cli')],
        hooks,
      );
      expect(added.code).toBe(0);
      const secret = added.stdout.trim();
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
      const endpointId = /added endpoint (\S+)/.exec(added.stderr)?.[1] as string;
      expect((await dealroom(['webhooks', 'list', '--team', team.id as string], hooks)).stdout).toContain(
        receiver.url('/cli'),
      );
      const bad = await dealroom(
        ['webhooks', 'add', '--team', team.id as string, '--url', 'x', '--events', 'nope'],
        hooks,
      );
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/unknown: nope/);

      // With --no-worker the event waits in the outbox; the next server delivers it.
      const quiet = await startServer(['--no-worker'], served);
      try {
        const manage = /Management API listening on (http:\/\/\S+)/.exec(quiet.output())?.[1];
        const created = await fetch(`${manage}/teams/${team.id}/deal-rooms`, {
          method: 'POST',
          headers,
          body: '{"name":"Hooked"}',
        });
        expect(created.status).toBe(201);
        await new Promise((resolve) => setTimeout(resolve, 700));
        expect(receiver.to('/cli')).toHaveLength(0);
      } finally {
        expect(await quiet.stop()).toBe(0);
      }

      const server = await startServer([], served);
      try {
        await until(() => receiver.to('/cli').length === 1, 'the delivery');
        const letters = async () =>
          dealroom(['webhooks', 'dead-letters', '--team', team.id as string], hooks);
        await until(async () => (await letters()).stdout.includes('410'), 'the dead letter');
        gone = false;
        const replayed = await dealroom(['webhooks', 'replay', '--endpoint', endpointId], hooks);
        expect(replayed.stdout).toContain('queued 1 dead letter');
        await until(() => receiver.to('/cli').length === 2, 'the replay');
        const [first, second] = receiver.to('/cli');
        expect(second?.headers['webhook-id']).toBe(first?.headers['webhook-id']);
        const event = await verifyWebhook(second?.body ?? '', second?.headers as never, secret);
        expect(event).toMatchObject({ type: 'deal_room.created', data: { name: 'Hooked' } });

        const attempts = await dealroom(['webhooks', 'attempts', endpointId], hooks);
        expect(
          attempts.stdout
            .trim()
            .split('\n')
            .slice(1)
            .map((line) => line.split('\t')[3]),
        ).toEqual(['200', '410']);
        const rotated = await dealroom(['webhooks', 'rotate-secret', endpointId], hooks);
        expect(rotated.stdout.trim()).toMatch(/^whsec_/);
        expect(rotated.stdout.trim()).not.toBe(secret);
        expect((await dealroom(['webhooks', 'remove', endpointId], hooks)).code).toBe(0);
        expect(
          (await dealroom(['webhooks', 'list', '--team', team.id as string], hooks)).stdout,
        ).not.toContain(endpointId);
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      await receiver.close();
    }
  });

  it('runs a worker alone, with its /metrics behind the admin token and its /healthz open', async () => {
    const refused = await dealroom(['worker', '--metrics-port', '0'], { ...env, ADMIN_TOKEN: '' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/--metrics-port needs ADMIN_TOKEN/);
    const token = 'a-long-enough-admin-token';
    const worker = await startWorkerProcess({ ...env, ADMIN_TOKEN: token }, ['--metrics-port', '0']);
    try {
      const url = /Worker metrics on (http:\/\/\S+)/.exec(worker.output())?.[1] as string;
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
        401,
      );
      const scraped = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/^dealroom_webhook_queue_depth \d+$/m);
      const health = await fetch(url.replace(/\/metrics$/, '/healthz'));
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
    } finally {
      worker.child.kill('SIGTERM');
      expect(await worker.exited).toBe(0);
    }
  });

  it('refuses a sixth active key with a clear message', async () => {
    // The first five keys are made in process, on the same store; the CLI makes the sixth.
    const other = make.team();
    const { db } = await openStore({
      databaseUrl: env.DATABASE_URL || undefined,
      dataDir: env.DATA_DIR ?? '',
    });
    try {
      await load(db, systemClock, { teams: [other] });
      for (let i = 0; i < 5; i++)
        await createApiKey({ db: db, clock: systemClock, appUrl: '' }, { teamId: other.id as string });
    } finally {
      await db.close();
    }
    const sixth = await dealroom(['keys', 'create', '--team', other.id as string], env);
    expect(sixth.code).toBe(1);
    expect(sixth.stdout).toBe('');
    expect(sixth.stderr).toContain('at most 5 active API keys');
  });

  it('fails an import with the record and field named, exit 1, and nothing imported', async () => {
    const file = join(tempDir('file'), 'bad.ndjson');
    const t = make.team();
    writeFileSync(
      file,
      `${JSON.stringify({ type: 'team', ...t })}\n${JSON.stringify({ type: 'dealRoom', ...make.room(t.id as string), status: 'open' })}\n`,
    );
    const result = await dealroom(['import', file], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('line 2, field "status": must be one of: active, archived');
    expect(result.stderr).toContain('nothing was imported');
    const keys = await dealroom(['keys', 'list', '--team', t.id as string], env);
    expect(keys.code).toBe(1);
    expect(keys.stderr).toContain('Team not found');
  });

  it('on SIGTERM turns /readyz to 503 at once, answers every request already received, exits 0', async () => {
    const created = await dealroom(['keys', 'create', '--team', team.id as string], env);
    const key = created.stdout.trim();
    const server = await startServer([], { ...env, LOG_LEVEL: 'debug' });
    // A keep-alive connection opened before the signal, to ask /readyz on after it.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const readyz = () =>
      new Promise<number | string>((resolve) => {
        httpGet(`${server.base}/readyz`, { agent }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', (err) => resolve(err.message));
      });
    expect(await readyz()).toBe(200);
    const inFlight = Array.from({ length: 5 }, () =>
      fetch(`${server.base}/v1/deal-rooms/${room.id}/analytics?period=all`, {
        headers: { 'x-api-key': key },
      }),
    );
    // Signal once the server has read every request, so all five are in its hands.
    const received = /"url":"\/v1\/deal-rooms\/[^"]+\/analytics[^"]*","msg":"request received"/g;
    while ((server.output().match(received) ?? []).length < 5) {
      await new Promise((r) => setTimeout(r, 1));
    }
    const stopped = server.stop('SIGTERM');
    while (!server.output().includes('shutting down')) await new Promise((r) => setTimeout(r, 1));
    expect(await readyz()).toBe(503);
    agent.destroy();
    const code = await stopped;
    const statuses = await Promise.all(
      inFlight.map((p) =>
        p.then(
          (r) => r.status,
          () => 'refused',
        ),
      ),
    );
    expect(code).toBe(0);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(server.output()).toContain('shutting down');
    expect(server.output()).toContain('"msg":"stopped"');
    // Idle keep-alive connections were closed, not left to the grace period.
    expect(server.output()).not.toContain('grace period over');
    if (kind === 'embedded') expect(existsSync(join(env.DATA_DIR ?? '', 'dealroom.lock'))).toBe(false);
  });
});

describe('dealroom configuration', () => {
  it('lists every configuration problem and exits 1', async () => {
    const result = await dealroom(['migrate'], {
      DATABASE_URL: 'mysql://x',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      APP_URL: 'ftp://x',
    });
    expect(result.code).toBe(1);
    for (const name of ['DATABASE_URL', 'PORT', 'LOG_LEVEL', 'APP_URL'])
      expect(result.stderr).toContain(name);
  });

  it('names the database server it cannot reach, without its password', async () => {
    const result = await dealroom(['migrate', 'status'], {
      DATABASE_URL: 'postgres://someone:hunter2@127.0.0.1:1/nowhere',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the database at 127.0.0.1:1 is unreachable (ECONNREFUSED)');
    expect(result.stderr).not.toContain('hunter2');
    expect(result.stderr).not.toContain('unexpected error');
  });

  it('explains an unknown command', async () => {
    const result = await dealroom(['frobnicate'], {});
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unknown command: frobnicate');
  });
});

describe('the dealroom binary', () => {
  it('runs compiled JavaScript with plain node: nothing is compiled into, or loaded from, a temp folder', async () => {
    const tmp = tempDir('tmp');
    try {
      const result = await dealroom(['--help'], { TMPDIR: tmp });
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('usage: dealroom');
      expect(readdirSync(tmp)).toEqual([]);
      expect(readFileSync(BIN, 'utf8')).not.toMatch(/tsx/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  it("starts `import` with a 4 MB young generation and every other command with V8's own", () => {
    // A `node` first on PATH that prints the arguments the launcher gives it.
    const bin = tempDir('node-bin');
    writeFileSync(join(bin, 'node'), '#!/bin/sh\nprintf "%s\\n" "$@"\n', { mode: 0o755 });
    const launch = (args: string[]) =>
      spawnSync(COMMAND, args, { env: { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}` } })
        .stdout.toString()
        .trim()
        .split('\n');
    // The launcher names its entry by its real path.
    const entry = realpathSync(BIN);
    expect(launch(['import', 'data.json'])).toEqual([
      '--max-semi-space-size=4',
      entry,
      'import',
      'data.json',
    ]);
    expect(launch(['serve', '--port', '0'])).toEqual([entry, 'serve', '--port', '0']);
    expect(launch(['migrate', 'import'])).toEqual([entry, 'migrate', 'import']);
  });
});

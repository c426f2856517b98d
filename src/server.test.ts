import { connect } from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { type Config, loadConfig } from './config.ts';
import { DEMO_LINK_SHORT_ID } from './seed/demo.ts';
import { type ServerOptions, startServer } from './server.ts';
import { unusedPort } from './testing/ports.ts';
import { until } from './testing/receiver.ts';
import { freshStores, storeKinds } from './testing/stores.ts';

const ADMIN_TOKEN = 'server-test-admin-token';

/** The whole service on loopback with a silent log: on free ports unless told otherwise. */
function startQuiet(config: Config, options: Partial<ServerOptions> = {}) {
  return startServer(config, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }), ...options });
}

/** A browser on the link page: its cookies kept, redirects not followed. */
function linkPageVisitor(base: string) {
  const jar = new Map<string, string>();
  return {
    async request(path: string, form?: Record<string, string>) {
      const response = await fetch(`${base}${path}`, {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(form ? { body: new URLSearchParams(form).toString() } : {}),
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const at = pair.indexOf('=');
        if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
      }
      return response;
    },
  };
}

describe.each(storeKinds())('the whole service in process (%s store)', (kind) => {
  const freshEnv = freshStores(kind);

  // Seeding the demo (real PDFs, a year of views) takes a while on a loaded machine.
  it('starts every listener and the worker from one config, serves the demo, and closes all of it', {
    timeout: 90_000,
  }, async () => {
    const env = await freshEnv();
    const config = loadConfig({ ...env, ADMIN_TOKEN, MANAGEMENT_PORT: '0', LOG_LEVEL: 'silent' });
    const server = await startQuiet(config, {
      demo: true,
    });
    expect(server.demoKey).toMatch(/^dr_live_/);
    const rooms = await fetch(`${server.readApi}/v1/deal-rooms`, {
      headers: { authorization: `Bearer ${server.demoKey}` },
    });
    expect(rooms.status).toBe(200);
    expect(((await rooms.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

    const team = await fetch(`${server.managementApi}/teams`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'In process' }),
    });
    expect(team.status).toBe(201);
    expect((await fetch(`${server.readApi}/readyz`)).status).toBe(200);

    // A view started on the link page is counted where /metrics is read, as the APIs' are.
    const metric = async () => {
      const text = await (
        await fetch(`${server.managementApi}/metrics`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        })
      ).text();
      return Number(/^dealroom_events_recorded_total\{type="view.started"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    };
    const before = await metric();
    const reader = linkPageVisitor(server.webApp as string);
    const gate = await reader.request(`/v/${DEMO_LINK_SHORT_ID}`);
    const token = /name="token" value="([^"]+)"/.exec(await gate.text())?.[1] ?? '';
    const passed = await reader.request(`/v/${DEMO_LINK_SHORT_ID}`, { token, email: 'metrics@example.com' });
    expect(passed.status).toBe(303);
    const room = await (await reader.request(`/v/${DEMO_LINK_SHORT_ID}`)).text();
    const viewer = new RegExp(`/v/${DEMO_LINK_SHORT_ID}/d/[0-9a-f-]{36}`).exec(room)?.[0];
    expect(viewer).toBeDefined();
    expect((await reader.request(viewer as string)).status).toBe(200);
    expect(await metric()).toBe(before + 1);

    await server.close();
    await expect(fetch(`${server.readApi}/healthz`)).rejects.toThrow();
    await expect(fetch(`${server.managementApi}/metrics`)).rejects.toThrow();
  });

  it('says ready only once every listener answers: the management API listens before the read API', async () => {
    const env = await freshEnv({ migrated: true });
    const [port, managementPort] = [await unusedPort(), await unusedPort()];
    const config = loadConfig({
      ...env,
      ADMIN_TOKEN,
      MANAGEMENT_PORT: String(managementPort),
      LOG_LEVEL: 'silent',
      MIGRATE_ON_START: 'true',
    });
    let managementWhenReady: number | undefined;
    let stop = false;
    const watching = (async () => {
      while (!stop) {
        const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ready) {
          const answer = await fetch(`http://127.0.0.1:${managementPort}/teams`, {
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          }).then(
            (r) => r.status,
            () => 0,
          );
          managementWhenReady = answer;
          return;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    const server = await startQuiet(config, { port });
    await Promise.race([watching, new Promise((r) => setTimeout(r, 5000))]);
    stop = true;
    await server.close();
    expect(managementWhenReady).toBe(200);
  });

  it('answers a connection accepted before shutdown even when its request comes after the quiet moment', async () => {
    const env = await freshEnv({ migrated: true });
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', MIGRATE_ON_START: 'true' });
    const server = await startQuiet(config);
    const { port } = new URL(server.readApi);
    // Accepted, but silent for far longer than the drain's quiet moment (300 ms): long enough
    // for every listener and the store to have closed, were it not waited for.
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const stopping = server.close();
    await new Promise((r) => setTimeout(r, 2000));
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await stopping;
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK/);
    expect(answer).toContain('connection: close');
    // And nothing new is accepted once the drain has begun.
    await expect(fetch(`${server.readApi}/healthz`)).rejects.toThrow();
  });

  it('closes within its grace period, the drain included, when an accepted connection never sends a request', async () => {
    const env = await freshEnv({ migrated: true });
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', MIGRATE_ON_START: 'true' });
    const server = await startQuiet(config, { worker: false, shutdownGraceMs: 2000 });
    const socket = connect(Number(new URL(server.readApi).port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    await closed;
    // Waited for the request the whole grace period, then cut it: not a second period after.
    expect(took).toBeGreaterThanOrEqual(1900);
    expect(took).toBeLessThan(3500);
  });

  it('stops accepting new connections as it shuts down under continuous load, and closes promptly', async () => {
    const env = await freshEnv({ migrated: true });
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', MIGRATE_ON_START: 'true' });
    const server = await startQuiet(config, {
      worker: false,
    });
    const statuses: number[] = [];
    let load = true;
    // A new connection every 10 ms, as a load balancer still sending would open them.
    const loading = (async () => {
      const sent: Promise<void>[] = [];
      while (load) {
        sent.push(
          fetch(`${server.readApi}/healthz`, { headers: { connection: 'close' } }).then(
            (res) => void statuses.push(res.status),
            () => undefined,
          ),
        );
        await new Promise((r) => setTimeout(r, 10));
      }
      await Promise.all(sent);
    })();
    // Under way before it closes: answers coming, however slow a loaded machine makes the first.
    await until(() => statuses.length >= 5, 'answers under load', 30_000);
    const started = Date.now();
    await server.close();
    const took = Date.now() - started;
    load = false;
    await loading;
    // Without refusing new connections the drain never sees a quiet moment and waits out its
    // 10 s grace; every answer given is a 200.
    expect(took).toBeLessThan(3000);
    expect(statuses.length).toBeGreaterThan(0);
    expect(statuses.every((status) => status === 200)).toBe(true);
  });
});

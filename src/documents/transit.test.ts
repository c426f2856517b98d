import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Server, startServer } from '../testing/process.ts';
import { until } from '../testing/receiver.ts';
import { freshStoreEnv, storeKinds } from '../testing/stores.ts';

const ADMIN_TOKEN = 'transit-test-admin-token';
const kind = storeKinds().at(-1) ?? 'embedded';

// Real processes: an upload is cut by SIGKILL half-way, and the next start clears what it left.
describe(`files in transit (${kind} store)`, { timeout: 120_000 }, () => {
  const started: Server[] = [];
  let drop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    for (const server of started) await server.stop('SIGKILL').catch(() => undefined);
    await drop?.();
  });

  it('leaves no temporary file behind an upload killed with SIGKILL, once the service starts again', async () => {
    const fresh = await freshStoreEnv(kind, { migrated: true });
    drop = fresh.drop;
    // The embedded store's folder is locked by its process: the second start waits for the first to be gone.
    const env = { ...fresh.env, ADMIN_TOKEN, MANAGEMENT_PORT: '0', MIGRATE_ON_START: 'true' };
    const first = await startServer(['--no-web'], env);
    started.push(first);
    const manage = /Management API listening on (http:\/\/\S+)/.exec(first.output())?.[1] as string;
    const admin = async (path: string, body: unknown) => {
      const answer = await fetch(`${manage}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return ((await answer.json()) as { data: { id: string } }).data.id;
    };
    const team = await admin('/teams', { name: 'Transit' });
    const room = await admin(`/teams/${team}/deal-rooms`, { name: 'Room' });
    const document = await admin(`/deal-rooms/${room}/documents`, { name: 'Deck.pdf' });

    // 2 MiB of a PDF arrive, then nothing more: the upload is in the service's temporary file.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(
          new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(2 * 1024 * 1024)])),
        );
      },
    });
    const upload = fetch(`${manage}/documents/${document}/file`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/pdf' },
      body,
      duplex: 'half',
    } as RequestInit).catch(() => undefined);
    const folder = join(tmpdir(), 'dealroom-files', String(first.child.pid));
    const received = () =>
      existsSync(folder) &&
      readdirSync(folder).some((name) => statSync(join(folder, name)).size >= 2 * 1024 * 1024);
    await until(received, 'the upload received into a temporary file', 20_000);

    await first.stop('SIGKILL');
    await upload;
    expect(existsSync(folder)).toBe(true);

    const second = await startServer(['--no-web'], env);
    started.push(second);
    expect(existsSync(folder)).toBe(false);
    await second.stop();
  });
});

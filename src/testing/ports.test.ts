import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { unusedPort } from './ports.ts';

it('gives a port below the ephemeral range that a server can then listen on', async () => {
  const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  const port = await unusedPort();
  expect(port).toBeGreaterThanOrEqual(10_000);
  expect(port).toBeLessThan(low);
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  await new Promise((resolve) => server.close(resolve));
});

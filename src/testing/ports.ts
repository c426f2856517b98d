import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** The kernel's ephemeral ports start here (Linux's default where the setting cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 2048 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Whether a listener can be opened on this port of 127.0.0.1 now. */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A port on 127.0.0.1 that nothing listens on, for a server that has to be told its port
 * before it starts, or that stops and starts again on the same one. It is below the kernel's
 * ephemeral range: a port from that range (what `listen(0)` returns) can be handed to any
 * outgoing connection or `listen(0)` of the busy machine in the seconds before the server
 * binds it (EADDRINUSE); a port below it is only ever taken by being asked for.
 */
export async function unusedPort(): Promise<number> {
  const low = Math.min(ephemeralLow(), 65536);
  const from = 10_000;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = from + Math.floor(Math.random() * Math.max(1, low - from));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${from} and ${low} on 127.0.0.1`);
}

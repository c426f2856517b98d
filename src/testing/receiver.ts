import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the receiver got. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers: a status (and headers), after a delay; or it hangs, or drops the connection. */
export type Answer =
  | { status: number; headers?: Record<string, string>; delayMs?: number }
  | { hang: true }
  | { drop: true };

export type Responder = (request: Received, seen: number) => Answer;

/**
 * A webhook receiver on loopback, as a team would run one: it records every request and
 * answers as the path's responder says (200 by default). `seen` counts the requests with
 * that webhook-id so far, this one included.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const responders = new Map<string, Responder>();
  const hanging = new Set<ServerResponse>();
  const seenById = new Map<string, number>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      const id = String(req.headers['webhook-id']);
      const seen = (seenById.get(id) ?? 0) + 1;
      seenById.set(id, seen);
      const respond: Responder = responders.get(request.path) ?? (() => ({ status: 200 }));
      const answer = respond(request, seen);
      if ('hang' in answer) {
        hanging.add(res);
        return;
      }
      if ('drop' in answer) {
        req.socket.destroy();
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end('ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    on(path: string, responder: Responder) {
      responders.set(path, responder);
    },
    to: (path: string) => received.filter((r) => r.path === path),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000) {
  const by = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > by) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

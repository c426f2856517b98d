import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { TypedFastify } from '../routing/types.ts';

/** How long no request may arrive before a draining server closes. */
const DRAIN_QUIET_MS = 300;

/**
 * Requests in flight on the listeners. Responses finished while closing close their
 * connection, so keep-alive clients do not hold the server open once answered.
 */
export class Activity {
  #inFlight = 0;
  #lastAt = Date.now();
  /** Connections accepted that have not sent a request yet: each is answered before closing. */
  readonly #unused = new Set<Socket>();
  readonly #servers: TypedFastify[] = [];
  constructor(readonly closing: () => boolean) {}

  track(server: TypedFastify): void {
    this.#servers.push(server);
    server.server.on('connection', (socket: Socket) => {
      this.#unused.add(socket);
      socket.once('close', () => this.#unused.delete(socket));
    });
    server.addHook('onSend', async (_request, reply, payload) => {
      if (this.closing()) reply.header('Connection', 'close');
      return payload;
    });
    // Counted on the HTTP server itself, not in Fastify's hooks: a request refused by an
    // earlier hook (a wrong admin token) skips the hooks after it, and would otherwise leave
    // its connection counted as unused, or the count of requests in flight off by one.
    server.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      this.#unused.delete(request.socket);
      this.#inFlight++;
      this.#lastAt = Date.now();
      response.once('close', () => {
        this.#inFlight--;
        this.#lastAt = Date.now();
      });
    });
  }

  /**
   * Drain before closing: close() also drops idle keep-alive connections, and one accepted
   * but not yet read (a busy event loop, a client slow to send) looks idle. So new connections
   * are refused first, then the listeners wait until nothing is in flight, no request has come
   * for a moment, and every connection already accepted has sent its request: until `by`.
   */
  async drained(by: number): Promise<void> {
    // Stop listening, keeping every connection (net's close: http's would also drop idle
    // keep-alive ones, on which a client may still be about to ask).
    for (const server of this.#servers) NetServer.prototype.close.call(server.server);
    while (
      Date.now() < by &&
      (this.#inFlight > 0 || this.#unused.size > 0 || Date.now() - this.#lastAt < DRAIN_QUIET_MS)
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

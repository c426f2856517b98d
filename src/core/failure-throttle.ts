/**
 * Counts failed attempts per client (an address, or an address and a link) in a fixed
 * window, and says how long a client that failed too often must wait. It lives in one
 * process: N processes allow N times the limit, which is enough to stop guessing a secret
 * that is far too long to guess. It holds at most `maxClients` entries (the oldest go first),
 * so a flood of addresses cannot grow it without bound.
 */
export class FailureThrottle {
  readonly #failures = new Map<string, { count: number; windowEndsMs: number }>();

  constructor(readonly options: { limit: number; windowMs: number; maxClients?: number }) {}

  /** Seconds the client must wait before its next attempt, or 0 when it may try now. */
  waitSeconds(client: string, nowMs: number): number {
    const entry = this.#failures.get(client);
    if (!entry || entry.windowEndsMs <= nowMs) return 0;
    return entry.count >= this.options.limit ? Math.ceil((entry.windowEndsMs - nowMs) / 1000) : 0;
  }

  /** Counts one failed attempt. */
  fail(client: string, nowMs: number): void {
    const entry = this.#failures.get(client);
    if (entry && entry.windowEndsMs > nowMs) {
      entry.count += 1;
      return;
    }
    this.#failures.delete(client);
    if (this.#failures.size >= (this.options.maxClients ?? 10_000)) {
      const oldest = this.#failures.keys().next();
      if (!oldest.done) this.#failures.delete(oldest.value);
    }
    this.#failures.set(client, { count: 1, windowEndsMs: nowMs + this.options.windowMs });
  }
}

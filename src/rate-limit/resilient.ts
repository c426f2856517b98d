import type { FastifyBaseLogger } from 'fastify';
import type { RateDecision, RateLimiter } from './limiter.ts';
import { MemoryRateLimiter } from './memory.ts';

export interface LimiterEvents {
  /** Called when the shared backend fails and when it answers again. */
  onStateChange?(degraded: boolean): void;
  onBackendError?(): void;
}

/**
 * Redis first; while Redis is unreachable, each process counts in its own memory so the
 * service keeps answering with limits still applied per process (a deliberate choice:
 * refusing every request, or counting nothing, would both be worse for callers). The fault
 * is logged once per outage, counted in metrics, and shown by /readyz as degraded. Every
 * request tries Redis again, so the shared count resumes as soon as Redis is back.
 */
export class ResilientRateLimiter implements RateLimiter {
  private readonly fallback: MemoryRateLimiter;
  private degradedSince: number | undefined;

  constructor(
    private readonly primary: RateLimiter,
    private readonly logger: FastifyBaseLogger,
    private readonly events: LimiterEvents = {},
  ) {
    this.fallback = new MemoryRateLimiter(primary.limits);
  }

  get limits() {
    return this.primary.limits;
  }

  get degraded(): boolean {
    return this.degradedSince !== undefined;
  }

  async consume(subject: { keyId: string; teamId: string }, nowMs: number): Promise<RateDecision> {
    try {
      const decision = await this.primary.consume(subject, nowMs);
      if (this.degradedSince !== undefined) {
        this.logger.info(
          { downForMs: Date.now() - this.degradedSince },
          'rate limiter: Redis is back; counting shared again',
        );
        this.degradedSince = undefined;
        this.events.onStateChange?.(false);
      }
      return decision;
    } catch (err) {
      this.events.onBackendError?.();
      if (this.degradedSince === undefined) {
        this.degradedSince = Date.now();
        this.logger.error(
          { err },
          'rate limiter: Redis unreachable; counting in this process until it returns',
        );
        this.events.onStateChange?.(true);
      }
      return this.fallback.consumeNow(subject, nowMs);
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.primary.close(), this.fallback.close()]);
  }
}

import type { FastifyBaseLogger } from 'fastify';
import type { LinkPageLimits } from '../config.ts';
import type { Metrics } from '../core/metrics.ts';
import { createRateLimiter } from '../rate-limit/create.ts';
import type { RateLimiter } from '../rate-limit/limiter.ts';

/** What a link page request may be counted as. */
export type LinkPageAction = 'page' | 'view' | 'report' | 'newVisitor';

/** How much of the limit an address gets beside one visitor's: an office shares one address. */
const PER_ADDRESS = { page: 5, view: 10, report: 10 } as const;

export interface LinkPageLimiter {
  /** Counts one action of a visitor (its cookie's id) from an address; the wait when refused. */
  consume(
    action: LinkPageAction,
    visitorId: string,
    address: string,
    nowMs: number,
  ): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * The link pages' limits per visitor cookie and per client address, in sliding windows: page
 * loads, view starts and reading reports per minute, and new anonymous visitors per hour from
 * one address (requests without a visitor cookie). The same limiter as the read API's: shared
 * by every process through Redis when REDIS_URL is set, else counted in this process.
 */
export function createLinkPageLimiter(
  limits: LinkPageLimits,
  setup: { redisUrl?: string | undefined; keyPrefix?: string; logger: FastifyBaseLogger; metrics: Metrics },
): LinkPageLimiter {
  const minute = 60_000;
  const make = (action: LinkPageAction, perVisitor: number, perAddress: number, windowMs: number) =>
    createRateLimiter(
      { perKey: perVisitor, perTeam: perAddress, windowMs },
      setup.redisUrl,
      setup.logger,
      setup.metrics,
      `${setup.keyPrefix ?? 'dealroom:'}link-${action}:`,
    ).limiter;
  const limiters: Record<LinkPageAction, RateLimiter> = {
    page: make('page', limits.pagesPerMinute, limits.pagesPerMinute * PER_ADDRESS.page, minute),
    view: make('view', limits.viewsPerMinute, limits.viewsPerMinute * PER_ADDRESS.view, minute),
    report: make('report', limits.reportsPerMinute, limits.reportsPerMinute * PER_ADDRESS.report, minute),
    newVisitor: make('newVisitor', limits.newVisitorsPerHour, limits.newVisitorsPerHour, 60 * minute),
  };
  return {
    async consume(action, visitorId, address, nowMs) {
      const key = action === 'newVisitor' ? `address:${address}` : `visitor:${visitorId}`;
      const decision = await limiters[action].consume({ keyId: key, teamId: `address:${address}` }, nowMs);
      if (decision.allowed) return undefined;
      const until = Math.max(
        decision.key.remaining === 0 ? decision.key.resetAtMs : 0,
        decision.team.remaining === 0 ? decision.team.resetAtMs : 0,
      );
      return Math.max(1, Math.ceil((until - nowMs) / 1000));
    },
    async close() {
      await Promise.all(Object.values(limiters).map((limiter) => limiter.close()));
    },
  };
}

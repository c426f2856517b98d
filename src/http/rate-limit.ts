import type { FastifyReply } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import type { Metrics } from '../core/metrics.ts';
import { type RateLimiter, rateLimitHeaders } from '../rate-limit/limiter.ts';
import { rateLimitMetrics } from '../rate-limit/metrics.ts';
import type { Caller } from './auth.ts';

/**
 * Counts an authenticated request against its key's and team's budgets, puts the budget
 * headers on the response whatever its outcome, and refuses with 429 when either is spent.
 */
export function createRateLimitCheck(limiter: RateLimiter, clock: Clock, metrics: Metrics) {
  return async function checkRateLimit(caller: Caller, reply: FastifyReply): Promise<void> {
    const nowMs = clock.now().getTime();
    const decision = await limiter.consume({ keyId: caller.keyId, teamId: caller.teamId }, nowMs);
    const headers = rateLimitHeaders(decision, limiter.limits, nowMs);
    reply.headers(headers);
    if (!decision.allowed) {
      rateLimitMetrics(metrics).rateLimited.inc();
      throw new ApiError('rate_limit', 'Rate limit exceeded', headers);
    }
  };
}

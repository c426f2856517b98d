/**
 * Rolling-window request budgets per API key and per team (contract.md section 3). Both
 * are checked and recorded as one step: a request refused by either consumes nothing.
 */
import type { RateLimits } from '../config.ts';

export type { RateLimits } from '../config.ts';

export interface Budget {
  limit: number;
  /** What is left after this request. */
  remaining: number;
  /** When the oldest counted request leaves the window (ms since epoch); now when none is counted. */
  resetAtMs: number;
}

export interface RateDecision {
  allowed: boolean;
  key: Budget;
  team: Budget;
}

export interface RateLimiter {
  readonly limits: RateLimits;
  /** Checks both budgets and, when both have room, counts the request in both. */
  consume(subject: { keyId: string; teamId: string }, nowMs: number): Promise<RateDecision>;
  close(): Promise<void>;
}

/** A sliding log's verdict for one budget, from its size and oldest entry. */
export function budgetOf(
  limit: number,
  counted: number,
  oldestMs: number | undefined,
  windowMs: number,
  nowMs: number,
): Budget {
  return {
    limit,
    remaining: Math.max(0, limit - counted),
    resetAtMs: oldestMs === undefined ? nowMs : oldestMs + windowMs,
  };
}

/**
 * The response headers for a decision: the X-RateLimit trio for whichever budget has less
 * left (on a tie, the one that frees up later), the IETF pair for both, and Retry-After
 * on a refusal: when every exhausted budget has room again.
 */
export function rateLimitHeaders(
  decision: RateDecision,
  limits: RateLimits,
  nowMs: number,
): Record<string, string> {
  const { key, team } = decision;
  const tighter =
    key.remaining < team.remaining || (key.remaining === team.remaining && key.resetAtMs >= team.resetAtMs)
      ? key
      : team;
  const seconds = (ms: number) => Math.max(0, Math.ceil((ms - nowMs) / 1000));
  const windowSeconds = Math.round(limits.windowMs / 1000);
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': String(tighter.limit),
    'X-RateLimit-Remaining': String(tighter.remaining),
    'X-RateLimit-Reset': String(Math.ceil(tighter.resetAtMs / 1000)),
    'RateLimit-Policy': `"key";q=${key.limit};w=${windowSeconds}, "team";q=${team.limit};w=${windowSeconds}`,
    RateLimit: `"key";r=${key.remaining};t=${seconds(key.resetAtMs)}, "team";r=${team.remaining};t=${seconds(team.resetAtMs)}`,
  };
  if (!decision.allowed) {
    const blocking = [key, team].filter((b) => b.remaining === 0).map((b) => b.resetAtMs);
    headers['Retry-After'] = String(Math.max(1, seconds(Math.max(...blocking))));
  }
  return headers;
}

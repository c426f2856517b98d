import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';
import type { Metrics } from '../core/metrics.ts';
import type { HealthCheck } from '../health/routes.ts';
import type { RateLimiter, RateLimits } from './limiter.ts';
import { MemoryRateLimiter } from './memory.ts';
import { rateLimitMetrics } from './metrics.ts';
import { RedisRateLimiter } from './redis.ts';
import { ResilientRateLimiter } from './resilient.ts';

export interface LimiterSetup {
  limiter: RateLimiter;
  healthChecks: HealthCheck[];
}

/** Redis-backed (shared by every process) when a URL is given, else in this process. */
export function createRateLimiter(
  limits: RateLimits,
  redisUrl: string | undefined,
  logger: FastifyBaseLogger,
  metrics: Metrics,
  redisKeyPrefix = 'dealroom:',
): LimiterSetup {
  if (!redisUrl) return { limiter: new MemoryRateLimiter(limits), healthChecks: [] };
  const redis = new Redis(redisUrl, {
    // Fail fast while disconnected instead of queueing requests behind a dead connection;
    // reconnect in the background for as long as it takes.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 1000,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    lazyConnect: false,
  });
  redis.on('error', () => undefined); // reported through the limiter, once per outage
  const limiter = new ResilientRateLimiter(new RedisRateLimiter(redis, limits, redisKeyPrefix), logger, {
    onStateChange: (degraded) => rateLimitMetrics(metrics).degraded.set(degraded ? 1 : 0),
    onBackendError: () => rateLimitMetrics(metrics).backendErrors.inc(),
  });
  const check: HealthCheck = {
    name: 'rateLimiter',
    critical: false,
    async check() {
      if (redis.status !== 'ready') throw new Error(`redis connection is ${redis.status}`);
      await redis.ping();
    },
  };
  return { limiter, healthChecks: [check] };
}

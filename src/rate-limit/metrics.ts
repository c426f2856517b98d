import { Counter, Gauge, type Registry } from 'prom-client';
import { ownMetrics } from '../core/metrics.ts';

/** What the rate limit counts: refusals, and the shared backend's health. */
export const rateLimitMetrics = ownMetrics((registry: Registry) => {
  const registers = [registry];
  return {
    rateLimited: new Counter({
      name: 'dealroom_rate_limited_total',
      help: 'Requests refused with 429',
      registers,
    }),
    backendErrors: new Counter({
      name: 'dealroom_rate_limit_backend_errors_total',
      help: 'Rate-limit decisions the shared backend (Redis) failed to make',
      registers,
    }),
    degraded: new Gauge({
      name: 'dealroom_rate_limit_degraded',
      help: '1 while Redis is unreachable and limits are counted per process',
      registers,
    }),
  };
});

import { Counter, type Registry } from 'prom-client';
import { ownMetrics } from '../core/metrics.ts';

/** What the management listener counts of the requests it refuses before any route. */
export const managementMetrics = ownMetrics((registry: Registry) => ({
  tokenFailures: new Counter({
    name: 'dealroom_admin_token_failures_total',
    help: 'Management requests refused for their admin token, by reason (missing, invalid or throttled)',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
}));

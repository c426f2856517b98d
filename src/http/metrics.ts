import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';
import { type Metrics, ownMetrics } from '../core/metrics.ts';

/** The listener a request came to: the `api` label of the request metrics. */
export type Api = 'read' | 'management' | 'web';

/** What the listeners count of their requests. */
export const httpMetrics = ownMetrics((registry: Registry) => {
  const registers = [registry];
  return {
    requests: new Histogram({
      name: 'dealroom_http_request_duration_seconds',
      help: 'Requests by API (read or management), route and status',
      labelNames: ['api', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    writes: new Counter({
      name: 'dealroom_writes_total',
      help: 'Management API changes that succeeded, by route',
      labelNames: ['route'] as const,
      registers,
    }),
    failures: new Counter({
      name: 'dealroom_request_failures_total',
      help: 'Requests answered 500, by reason: database_unavailable (an outage, logged once) or error (logged each time)',
      labelNames: ['reason'] as const,
      registers,
    }),
    unauthorized: new Counter({
      name: 'dealroom_unauthorized_total',
      help: 'Requests refused with 401 (no key, or a key that is not valid)',
      registers,
    }),
  };
});

/** A duration for every routed request of an API; for the management API, its successful changes too. */
export function observeRequests(app: FastifyInstance, metrics: Metrics, api: Api): void {
  const { requests, writes } = httpMetrics(metrics);
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route || (api === 'read' && !route.startsWith('/v1')) || route === '/metrics') return;
    const status = reply.statusCode;
    requests.observe({ api, route, status: String(status) }, reply.elapsedTime / 1000);
    if (api === 'management' && request.method !== 'GET' && status < 300) {
      writes.inc({ route: `${request.method} ${route}` });
    }
  });
}

/** GET /metrics in Prometheus' text format: served by the management API, which is internal. */
export function metricsEndpoint(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('Content-Type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}

import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';
import { type QueueStats, queueStats } from '../webhooks/queue.ts';

/** The service's Prometheus metrics, one registry per app so tests do not share counts. */
export function createMetrics() {
  const registry = new Registry();
  return {
    registry,
    requests: new Histogram({
      name: 'dealroom_http_request_duration_seconds',
      help: 'Requests by API (read or management), route and status',
      labelNames: ['api', 'route', 'status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    writes: new Counter({
      name: 'dealroom_writes_total',
      help: 'Management API changes that succeeded, by route',
      labelNames: ['route'] as const,
      registers: [registry],
    }),
    eventsRecorded: new Counter({
      name: 'dealroom_events_recorded_total',
      help: 'Webhook events recorded in the outbox, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'dealroom_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by result (succeeded or failed)',
      labelNames: ['result'] as const,
      registers: [registry],
    }),
    webhookDeadLetters: new Counter({
      name: 'dealroom_webhook_dead_letters_total',
      help: 'Deliveries this process moved to the dead-letter queue',
      registers: [registry],
    }),
    failures: new Counter({
      name: 'dealroom_request_failures_total',
      help: 'Requests answered 500, by reason: database_unavailable (an outage, logged once) or error (logged each time)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    unauthorized: new Counter({
      name: 'dealroom_unauthorized_total',
      help: 'Requests refused with 401 (no key, or a key that is not valid)',
      registers: [registry],
    }),
    rateLimited: new Counter({
      name: 'dealroom_rate_limited_total',
      help: 'Requests refused with 429',
      registers: [registry],
    }),
    rateLimitBackendErrors: new Counter({
      name: 'dealroom_rate_limit_backend_errors_total',
      help: 'Rate-limit decisions the shared backend (Redis) failed to make',
      registers: [registry],
    }),
    rateLimitDegraded: new Gauge({
      name: 'dealroom_rate_limit_degraded',
      help: '1 while Redis is unreachable and limits are counted per process',
      registers: [registry],
    }),
    withDefaults() {
      collectDefaultMetrics({ register: registry });
      return this;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A duration for every routed request of an API; for the management API, its successful changes too. */
export function observeRequests(app: FastifyInstance, metrics: Metrics, api: 'read' | 'management'): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route || (api === 'read' && !route.startsWith('/v1')) || route === '/metrics') return;
    const status = reply.statusCode;
    metrics.requests.observe({ api, route, status: String(status) }, reply.elapsedTime / 1000);
    if (api === 'management' && request.method !== 'GET' && status < 300) {
      metrics.writes.inc({ route: `${request.method} ${route}` });
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

/** The database pool's waits and sheds (503s), read when /metrics is scraped. */
export function trackPool(metrics: Metrics, db: Database): void {
  if (metrics.registry.getSingleMetric('dealroom_db_pool_waiting')) return;
  const registers = [metrics.registry];
  new Counter({
    name: 'dealroom_db_pool_waits_total',
    help: 'Requests that waited for a database connection',
    registers,
    collect() {
      this.reset();
      this.inc(db.poolStats().waits);
    },
  });
  new Counter({
    name: 'dealroom_db_pool_sheds_total',
    help: 'Requests refused with 503 because no database connection was free in time',
    registers,
    collect() {
      this.reset();
      this.inc(db.poolStats().sheds);
    },
  });
  new Gauge({
    name: 'dealroom_db_pool_waiting',
    help: 'Requests waiting for a database connection now',
    registers,
    collect() {
      this.set(db.poolStats().waiting);
    },
  });
}

/**
 * The webhook queue as every worker shares it, read from the database when /metrics is
 * scraped: deliveries pending, the oldest one's age, dead letters not replayed.
 */
export function trackWebhookQueue(metrics: Metrics, db: Database, clock: Clock): void {
  if (metrics.registry.getSingleMetric('dealroom_webhook_queue_depth')) return;
  const registers = [metrics.registry];
  let reading: Promise<QueueStats | undefined> | undefined;
  // One query serves the three gauges of a scrape.
  const stats = () => {
    reading ??= queueStats(db, clock.now())
      .catch(() => undefined)
      .finally(() =>
        setTimeout(() => {
          reading = undefined;
        }, 100).unref(),
      );
    return reading;
  };
  const gauges: [string, string, (read: QueueStats) => number][] = [
    [
      'dealroom_webhook_queue_depth',
      'Webhook deliveries pending (due, waiting for a retry, or being attempted)',
      (read) => read.pending,
    ],
    [
      'dealroom_webhook_oldest_pending_seconds',
      'Age of the oldest pending webhook delivery',
      (read) => read.oldestPendingSeconds,
    ],
    ['dealroom_webhook_dead_letters', 'Dead letters not replayed', (read) => read.deadLetters],
  ];
  for (const [name, help, pick] of gauges) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const read = await stats();
        if (read) this.set(pick(read));
      },
    });
  }
}

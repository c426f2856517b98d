import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';

export interface HealthCheck {
  name: string;
  /** A failing critical check makes the service not ready (503); another only degraded. */
  critical?: boolean;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

/**
 * /healthz: the process answers. /readyz: 200 when every dependency answers; 503 naming
 * which when a critical one (the database) does not; 200 "degraded" when only a
 * non-critical one (Redis, with a per-process fallback) does not.
 */
export function healthRoutes(app: FastifyInstance, checks: HealthCheck[]): void {
  app.get('/healthz', async () => ({ status: 'ok' }));
  // A check's failure is logged when it starts failing and when it passes again, not at
  // every probe (a load balancer probes every few seconds through an outage).
  const failing = new Set<string>();

  app.get('/readyz', async (request, reply) => {
    const results = await Promise.all(
      checks.map(async ({ name, check, critical = true }) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          if (failing.delete(name)) request.log.info({ check: name }, 'readiness check passes again');
          return { name, ok: true, critical };
        } catch (err) {
          if (!failing.has(name)) {
            failing.add(name);
            request.log.warn(
              { check: name, reason: err instanceof Error ? err.message : String(err) },
              'readiness check failing',
            );
          }
          return { name, ok: false, critical };
        }
      }),
    );
    const ready = results.every((r) => r.ok || !r.critical);
    const status = !ready ? 'unavailable' : results.every((r) => r.ok) ? 'ok' : 'degraded';
    return reply.code(ready ? 200 : 503).send({
      status,
      checks: Object.fromEntries(results.map((r) => [r.name, r.ok ? 'ok' : 'unavailable'])),
    });
  });
}

export function databaseCheck(db: Database): HealthCheck {
  return { name: 'database', check: () => db.ping() };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/database.ts';

export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

const CHECK_TIMEOUT_MS = 2000;

/** /healthz: the process answers. /readyz: every dependency answers, or 503 naming which. */
export function healthRoutes(app: FastifyInstance, checks: HealthCheck[]): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (request, reply) => {
    const results = await Promise.all(
      checks.map(async ({ name, check }) => {
        try {
          await withTimeout(check(), CHECK_TIMEOUT_MS);
          return [name, 'ok'] as const;
        } catch (err) {
          request.log.warn({ err, check: name }, 'readiness check failed');
          return [name, 'unavailable'] as const;
        }
      }),
    );
    const ready = results.every(([, state]) => state === 'ok');
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? 'ok' : 'unavailable', checks: Object.fromEntries(results) });
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

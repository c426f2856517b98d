import { analyticsRoutes } from './analytics/routes.ts';
import type { Clock } from './core/clock.ts';
import { apiErrors } from './core/errors.ts';
import { createMetrics, type Metrics } from './core/metrics.ts';
import type { Database } from './db/database.ts';
import { dealRoomRoutes } from './deal-rooms/routes.ts';
import { documentRoutes } from './documents/routes.ts';
import { databaseCheck, type HealthCheck, healthRoutes } from './health/routes.ts';
import { createAuthenticator } from './http/auth.ts';
import { conditionalGet } from './http/caching.ts';
import { registerDocs } from './http/docs.ts';
import { registerOpenApi } from './http/openapi.ts';
import { isV1Path, V1_PATHS } from './http/paths.ts';
import { createRateLimitCheck } from './http/rate-limit.ts';
import { createServer, type LoggerOption } from './http/server.ts';
import { queryErrorMessage } from './http/validation.ts';
import { linkRoutes } from './links/routes.ts';
import type { RateLimiter } from './rate-limit/limiter.ts';
import { keptBodies } from './routing/kept-bodies.ts';
import type { TypedFastify } from './routing/types.ts';
import { viewerRoutes } from './viewers/routes.ts';

export interface AppDeps {
  db: Database;
  clock: Clock;
  appUrl: string;
  /** pino options, or a logger to use as it is; tests pass `{ level: 'silent' }`. */
  logger: LoggerOption;
  /** Extra readiness checks beyond the database. */
  healthChecks?: HealthCheck[];
  /** Request budgets per key and team; none means unlimited. */
  rateLimiter?: RateLimiter;
  metrics?: Metrics;
  /** Rendered analytics bodies kept in this process (ANALYTICS_CACHE_MB; default 32 MiB). */
  analyticsCacheBytes?: number;
  /** Rendered pages of the rooms' lists kept in this process (LIST_CACHE_MB; default 32 MiB). */
  listCacheBytes?: number;
}

const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export async function buildApp(deps: AppDeps): Promise<TypedFastify> {
  const metrics = deps.metrics ?? createMetrics();
  const app = createServer({
    ...deps,
    api: 'read',
    metrics,
    validationMessage: (err, request) =>
      err.validationContext === 'querystring' && err.validation
        ? queryErrorMessage(err.validation, request.query)
        : 'The request could not be understood',
    methodNotAllowed: (request) =>
      isV1Path(request.url) && !['GET', 'HEAD'].includes(request.method)
        ? apiErrors.methodNotAllowed()
        : undefined,
  });
  healthRoutes(app, [databaseCheck(deps.db), ...(deps.healthChecks ?? [])]);
  await registerOpenApi(app);
  await registerDocs(app);

  const authenticate = createAuthenticator(deps.db, deps.clock);
  const limit = deps.rateLimiter ? createRateLimitCheck(deps.rateLimiter, deps.clock, metrics) : undefined;
  await app.register(
    async (v1) => {
      v1.decorateRequest('caller', null as never);
      // Authentication, then the rate limit: only authenticated requests are counted.
      v1.addHook('onRequest', async (request, reply) => {
        request.caller = await authenticate(request);
        await limit?.(request.caller, reply);
      });
      v1.addHook('onSend', conditionalGet);
      const routeDeps = {
        db: deps.db,
        clock: deps.clock,
        appUrl: deps.appUrl,
        analyticsCacheBytes: deps.analyticsCacheBytes,
        keptLists: keptBodies(deps.listCacheBytes ?? 32 * 2 ** 20),
      };
      for (const routes of [dealRoomRoutes, documentRoutes, linkRoutes, viewerRoutes, analyticsRoutes]) {
        routes(v1 as TypedFastify, routeDeps);
      }
    },
    { prefix: '/v1' },
  );

  // Outside the authenticated scope: a known path with another method is answered before
  // any key is looked at (route checks come first).
  await app.register(
    async (v1) => {
      for (const url of V1_PATHS) {
        v1.route({
          method: [...OTHER_METHODS],
          url,
          handler: async () => {
            throw apiErrors.methodNotAllowed();
          },
        });
      }
    },
    { prefix: '/v1' },
  );

  return app;
}

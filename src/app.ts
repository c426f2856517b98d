import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyHttpOptions,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { analyticsRoutes } from './analytics/routes.ts';
import type { Clock } from './core/clock.ts';
import { ApiError, apiErrors } from './core/errors.ts';
import { createMetrics, type Metrics } from './core/metrics.ts';
import type { Database } from './db/database.ts';
import { trackPool } from './db/metrics.ts';
import { dealRoomRoutes } from './deal-rooms/routes.ts';
import { documentRoutes } from './documents/routes.ts';
import { databaseCheck, type HealthCheck, healthRoutes } from './health/routes.ts';
import { createAuthenticator } from './http/auth.ts';
import { conditionalGet } from './http/caching.ts';
import { registerDocs } from './http/docs.ts';
import {
  clientError,
  frameworkError,
  installErrorHandlers,
  logCompletion,
  rawErrorResponse,
} from './http/errors.ts';
import { observeRequests } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { V1_PATHS } from './http/paths.ts';
import { createRateLimitCheck } from './http/rate-limit.ts';
import { requestIdFor } from './http/request-id.ts';
import { decodableUrl } from './http/url.ts';
import { linkRoutes } from './links/routes.ts';
import type { RateLimiter } from './rate-limit/limiter.ts';
import type { TypedFastify } from './routing/types.ts';
import { viewerRoutes } from './viewers/routes.ts';

export interface AppDeps {
  db: Database;
  clock: Clock;
  appUrl: string;
  /** pino options, or a logger to use as it is; tests pass `{ level: 'silent' }`. */
  logger: FastifyServerOptions['logger'] | FastifyBaseLogger;
  /** Extra readiness checks beyond the database. */
  healthChecks?: HealthCheck[];
  /** Request budgets per key and team; none means unlimited. */
  rateLimiter?: RateLimiter;
  metrics?: Metrics;
}

const OTHER_METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'];

export async function buildApp(deps: AppDeps): Promise<TypedFastify> {
  const logging = isLoggerInstance(deps.logger)
    ? { loggerInstance: deps.logger }
    : {
        logger:
          deps.logger && typeof deps.logger === 'object'
            ? { redact: REDACTED_PATHS, ...deps.logger }
            : deps.logger,
      };
  const app = Fastify({
    ...logging,
    genReqId: requestIdFor,
    ajv: { customOptions: { coerceTypes: false, allErrors: false } },
    // While closing, requests that arrive on open connections are still answered (the
    // store stays open until the server has closed); /readyz already says 503 by then.
    return503OnClosing: false,
    // serve.ts drains before it closes; connections still open then are idle ones.
    forceCloseConnections: 'idle',
    // One line per request, at a level that depends on how it ended (logCompletion).
    logController: new LogController({ disableRequestLogging: true }),
    // Any room id, however long (Node caps the whole head at 16 KiB) or however encoded,
    // goes through authentication, the rate limit and the handler's 404 like other ids.
    routerOptions: { maxParamLength: 16_384 },
    rewriteUrl: (request) => decodableUrl(request.url ?? '/'),
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
    // Node would answer a request without Host with an empty 400; it is refused below
    // instead, in the usual shape and with a request id.
    http: { requireHostHeader: false },
  } as FastifyHttpOptions<Server>).withTypeProvider() as unknown as TypedFastify;

  app.addHook('onRequest', async (request) => {
    if (request.raw.httpVersion === '1.1' && !request.headers.host) {
      throw new ApiError(
        'validation_error',
        'The request could not be understood: the Host header is required',
      );
    }
  });
  // An Expect header other than 100-continue: Node would answer an empty 417.
  app.server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    response.socket?.end(
      rawErrorResponse(417, 'Expectation Failed', {
        error: 'Only the expectation 100-continue is supported',
        code: 'validation_error',
      }),
    );
  });

  app.addHook('onSend', async (request, reply, payload) => {
    reply.header('X-Request-Id', request.id);
    return payload;
  });
  const metrics = deps.metrics ?? createMetrics();
  installErrorHandlers(app, metrics);
  logCompletion(app);
  healthRoutes(app, [databaseCheck(deps.db), ...(deps.healthChecks ?? [])]);
  observeRequests(app, metrics, 'read');
  trackPool(metrics, deps.db);
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
      const routeDeps = { db: deps.db, clock: deps.clock, appUrl: deps.appUrl };
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

function isLoggerInstance(logger: AppDeps['logger']): logger is FastifyBaseLogger {
  return (
    typeof logger === 'object' && logger !== null && 'child' in logger && typeof logger.child === 'function'
  );
}

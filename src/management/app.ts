import { createHmac } from 'node:crypto';
import swagger from '@fastify/swagger';
import type { FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { ApiError } from '../core/errors.ts';
import { FailureThrottle } from '../core/failure-throttle.ts';
import { isUuid } from '../core/ids.ts';
import { createMetrics, type Metrics } from '../core/metrics.ts';
import { unstorableTextAt } from '../core/text.ts';
import type { Database } from '../db/database.ts';
import { dealRoomAdminRoutes } from '../deal-rooms/admin-routes.ts';
import { documentAdminRoutes } from '../documents/admin-routes.ts';
import { documentFileRoutes } from '../documents/file-routes.ts';
import { DEFAULT_FILE_MAX_BYTES } from '../documents/files.ts';
import { metricsEndpoint } from '../http/metrics.ts';
import { nameSharedSchemas } from '../http/openapi.ts';
import { createServer, type LoggerOption } from '../http/server.ts';
import { bodyErrorMessage } from '../http/validation.ts';
import { apiKeyAdminRoutes } from '../keys/admin-routes.ts';
import { linkAdminRoutes } from '../links/admin-routes.ts';
import { type FileWork, sharedFileWork } from '../rendering/pool.ts';
import type { TypedFastify } from '../routing/types.ts';
import { teamAdminRoutes } from '../teams/admin-routes.ts';
import { type TrackingRouteDeps, trackingAdminRoutes } from '../tracking/admin-routes.ts';
import { createViewStartWriter, type StartView } from '../tracking/view-starts.ts';
import { webhookAdminRoutes } from '../webhooks/admin-routes.ts';
import type { WriteContexts } from '../write/context.ts';
import { type Actor, IdempotentReplay, type WriteContext } from '../write/transaction.ts';
import { managementMetrics } from './metrics.ts';
import { decorateManagementDocument } from './openapi.ts';
import { adminTokenChecker } from './token.ts';

export interface ManagementDeps {
  db: Database;
  clock: Clock;
  adminToken: string;
  logger: LoggerOption;
  metrics?: Metrics;
  /** The largest document file accepted (FILE_MAX_BYTES; 100 MiB by default). */
  fileMaxBytes?: number | undefined;
  /** The process's file threads (server.ts); the shared ones when absent. */
  files?: FileWork | undefined;
  /** How view starts are written (server.ts passes its writer or its thread); a writer of its own if none. */
  startView?: StartView | undefined;
  /** The process's write contexts, made once at the composition root (server.ts). */
  writeContext: WriteContexts;
}

/** Who acts through the management API: the holder of the admin token, for any team. */
const ADMIN: Actor = { kind: 'admin' };

/** Failed admin-token requests one client address may make before it waits out the window. */
export const ADMIN_TOKEN_THROTTLE = { limit: 10, windowMs: 60_000 };
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const BODY_LIMIT = 64 * 1024;

/**
 * The internal management API (contract.md section 6): the write side for the dashboard
 * and the tracking front end, on its own listener, every request with the admin token.
 */
export async function buildManagementApp(deps: ManagementDeps): Promise<TypedFastify> {
  const metrics = deps.metrics ?? createMetrics();
  const app = createServer({
    ...deps,
    api: 'management',
    metrics,
    bodyLimit: BODY_LIMIT,
    validationMessage: (err) => bodyErrorMessage(err.validation ?? [], err.validationContext),
    knownError: (err) => {
      if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return new ApiError('validation_error', `The body must be at most ${BODY_LIMIT / 1024} KiB`);
      }
      if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
        return new ApiError('validation_error', 'The body must be application/json');
      }
      return undefined;
    },
  });

  // A POST without a body (archive, publish, …) may still say it is JSON.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, text, done) => {
    if (text === '') return done(null, undefined);
    let body: unknown;
    try {
      body = JSON.parse(text as string);
    } catch {
      return done(new ApiError('validation_error', 'The body is not valid JSON'), undefined);
    }
    // Refused here, before any write (a view start never reaches its batch): no column stores it.
    const unstorable = unstorableTextAt(body);
    if (unstorable !== undefined) {
      const field = unstorable === '' ? 'The body' : unstorable;
      return done(
        new ApiError('validation_error', `${field} must not contain U+0000 or an unpaired surrogate`),
        undefined,
      );
    }
    done(null, body);
  });

  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Cache-Control', 'no-store');
    return payload;
  });

  const checkToken = adminTokenChecker(deps.adminToken);
  const tokenFailures = managementMetrics(metrics).tokenFailures;
  const throttle = new FailureThrottle(ADMIN_TOKEN_THROTTLE);
  // Every request, the OpenAPI document included (contract.md section 6). The right token is
  // always served; an address that sent too many wrong or missing ones waits for its window
  // to pass before it is told 401 again, so a misconfigured client never locks the operator out.
  app.addHook('onRequest', async (request) => {
    const refused = checkToken(request.headers.authorization);
    if (!refused) return;
    const nowMs = deps.clock.now().getTime();
    const wait = throttle.waitSeconds(request.ip, nowMs);
    if (wait > 0) {
      tokenFailures.inc({ reason: 'throttled' });
      throw new ApiError('rate_limit', 'Too many requests with a wrong admin token; try again later', {
        'Retry-After': String(wait),
      });
    }
    tokenFailures.inc({ reason: refused.message === 'Admin token is required' ? 'missing' : 'invalid' });
    throttle.fail(request.ip, nowMs);
    throw refused;
  });
  // Ids are compared and stored as lower-case UUIDs: one sent in upper case is not echoed so.
  app.addHook('preValidation', async (request) => {
    const params = (request.params ?? {}) as Record<string, string>;
    for (const [name, value] of Object.entries(params)) {
      if (isUuid(value)) params[name] = value.toLowerCase();
    }
    const body = request.body as { documentId?: unknown; documentIds?: unknown } | undefined;
    if (typeof body?.documentId === 'string' && isUuid(body.documentId)) {
      body.documentId = body.documentId.toLowerCase();
    }
    if (Array.isArray(body?.documentIds)) {
      body.documentIds = body.documentIds.map((id) =>
        typeof id === 'string' && isUuid(id) ? id.toLowerCase() : id,
      );
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Deal Room Analytics management API',
        version: '1',
        description:
          'Internal: the write side for the web dashboard and the viewer-tracking front end. ' +
          'Every request needs `Authorization: Bearer <ADMIN_TOKEN>`. A POST may carry an `Idempotency-Key` header: ' +
          'a repeat with the same key and body within 24 hours gets the first answer and changes nothing.',
      },
      servers: [{ url: '/', description: 'The management listener (MANAGEMENT_PORT, default 8081)' }],
      components: { securitySchemes: { adminToken: { type: 'http', scheme: 'bearer' } } },
      security: [{ adminToken: [] }],
    },
    transformObject: (document) =>
      nameSharedSchemas(
        decorateManagementDocument(
          structuredClone((document as { openapiObject: Record<string, unknown> }).openapiObject),
        ),
      ),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  metricsEndpoint(app, metrics);

  const { writeContext } = deps;
  const routeDeps: TrackingRouteDeps = {
    db: deps.db,
    clock: deps.clock,
    fileMaxBytes: deps.fileMaxBytes ?? DEFAULT_FILE_MAX_BYTES,
    files: deps.files ?? sharedFileWork(),
    startView: deps.startView ?? createViewStartWriter(),
    async write(request, operation) {
      const ctx = writeContext({ idempotency: idempotencyOf(request, deps.adminToken), actor: ADMIN });
      try {
        return await operation(ctx);
      } catch (err) {
        if (err instanceof IdempotentReplay) return err.result as never;
        throw err;
      }
    },
  };
  for (const routes of [
    teamAdminRoutes,
    apiKeyAdminRoutes,
    dealRoomAdminRoutes,
    documentAdminRoutes,
    documentFileRoutes,
    linkAdminRoutes,
    trackingAdminRoutes,
    webhookAdminRoutes,
  ]) {
    routes(app, routeDeps);
  }
  return app;
}

/**
 * The request's Idempotency-Key and its fingerprint: an HMAC of the whole request keyed
 * with the admin token, so the stored fingerprints (kept 24 hours) let no database reader
 * test guesses of a link password in the body at the cost of one hash each.
 */
function idempotencyOf(request: FastifyRequest, secret: string): WriteContext['idempotency'] {
  const key = request.headers['idempotency-key'];
  if (key === undefined || request.method !== 'POST') return undefined;
  if (Array.isArray(key) || !IDEMPOTENCY_KEY.test(key)) {
    throw new ApiError(
      'validation_error',
      'Idempotency-Key must be 1 to 255 visible ASCII characters, given once',
    );
  }
  const fingerprint = createHmac('sha256', secret)
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex');
  return { key, fingerprint };
}

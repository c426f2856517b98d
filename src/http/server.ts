import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyHttpOptions,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import { ApiError } from '../core/errors.ts';
import type { Metrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { trackPool } from '../db/metrics.ts';
import type { TypedFastify } from '../routing/types.ts';
import { KEPT_COMPILERS } from './compilers.ts';
import {
  clientError,
  frameworkError,
  installErrorHandlers,
  logCompletion,
  rawErrorResponse,
} from './errors.ts';
import { type Api, observeRequests } from './metrics.ts';
import { requestIdFor } from './request-id.ts';
import { decodableUrl } from './url.ts';

export const REDACTED_PATHS = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'];

/** pino options, or a logger to use as it is; tests pass `{ level: 'silent' }`. */
export type LoggerOption = FastifyServerOptions['logger'] | FastifyBaseLogger;

export interface ServerOptions {
  /** Which listener this is: the label of its request metrics. */
  api: Api;
  logger: LoggerOption;
  metrics: Metrics;
  /** Its pool's waits and sheds are on /metrics. */
  db: Database;
  bodyLimit?: number;
  /** The message of a request that fails its schema (each listener words its own). */
  validationMessage: (err: FastifyError, request: FastifyRequest) => string;
  /** A request the router has no route for that is a known path with another method: a 405. */
  methodNotAllowed?: (request: FastifyRequest) => ApiError | undefined;
  /** Other Fastify errors of the listener's own (a body too large, say), as the ApiError to answer. */
  knownError?: (err: FastifyError) => ApiError | undefined;
  /** How an error is shown, for a listener of pages (the web app); JSON `{ error, code }` otherwise. */
  renderError?: (reply: FastifyReply, error: ApiError) => FastifyReply;
}

/**
 * The one Fastify server every listener is built from (the read API, the management API, the web app):
 * the same logging, request ids, hardening against malformed requests, error renderer,
 * not-found handler and request metrics. A listener adds its routes and its own hooks.
 */
export function createServer(options: ServerOptions): TypedFastify {
  const app = Fastify({
    ...logging(options.logger),
    genReqId: requestIdFor,
    ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}),
    ajv: { customOptions: { coerceTypes: false, allErrors: false, removeAdditional: false } },
    schemaController: KEPT_COMPILERS,
    // While closing, requests that arrive on open connections are still answered (the
    // store stays open until the server has closed); /readyz already says 503 by then.
    return503OnClosing: false,
    // The composition root drains before it closes; connections still open then are idle ones.
    forceCloseConnections: 'idle',
    // One line per request, at a level that depends on how it ended (logCompletion).
    logController: new LogController({ disableRequestLogging: true }),
    // Any id, however long (Node caps the whole head at 16 KiB) or however encoded, goes
    // through authentication, the rate limit and the handler's 404 like other ids.
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
  installErrorHandlers(app, options);
  logCompletion(app);
  observeRequests(app, options.metrics, options.api);
  trackPool(options.metrics, options.db);
  return app;
}

function logging(logger: LoggerOption) {
  if (isLoggerInstance(logger)) return { loggerInstance: logger };
  return { logger: logger && typeof logger === 'object' ? { redact: REDACTED_PATHS, ...logger } : logger };
}

function isLoggerInstance(logger: LoggerOption): logger is FastifyBaseLogger {
  return (
    typeof logger === 'object' && logger !== null && 'child' in logger && typeof logger.child === 'function'
  );
}

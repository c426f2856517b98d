import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, apiErrors, INTERNAL_ERROR_MESSAGE } from '../core/errors.ts';
import type { Metrics } from '../core/metrics.ts';
import { DatabaseBusyError, DatabaseUnavailableError } from '../db/database.ts';
import { httpMetrics } from './metrics.ts';
import { queryErrorMessage } from './validation.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Its completion is logged at debug: a failure of a database outage (logged once, where it starts). */
    quietCompletion: boolean;
  }
}

/** Route parameters that are secrets in themselves: a share link's short id, an invitation's token. */
const SECRET_PARAMS = new Set(['shortId', 'token']);

/**
 * The address as the log keeps it: a share link's short id or an invitation's token is a key
 * to what it opens, so it is written as `…`; everything else as requested.
 */
export function loggedUrl(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  if (!pattern || ![...SECRET_PARAMS].some((name) => pattern.includes(`:${name}`))) return request.url;
  const params = (request.params ?? {}) as Record<string, string>;
  const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
  return (
    pattern.replace(/:(\w+)/g, (_match, name: string) =>
      SECRET_PARAMS.has(name) ? '…' : encodeURIComponent(params[name] ?? ''),
    ) + query
  );
}

/** One line per request: info, or debug for 401s, 429s, 503s, health probes and requests failed by an outage. */
export function logCompletion(app: FastifyInstance): void {
  app.decorateRequest('quietCompletion', false);
  app.addHook('onRequest', async (request) => {
    request.log.debug({ method: request.method, url: loggedUrl(request) }, 'request received');
  });
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    const probe = request.routeOptions.url === '/healthz' || request.routeOptions.url === '/readyz';
    const quiet = status === 401 || status === 429 || status === 503 || probe || request.quietCompletion;
    request.log[quiet ? 'debug' : 'info'](
      {
        method: request.method,
        url: loggedUrl(request),
        statusCode: status,
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  });
}

/** What the error renderer needs of its listener (server.ts's options). */
export interface ErrorRendering {
  metrics: Metrics;
  validationMessage: (err: FastifyError, request: FastifyRequest) => string;
  methodNotAllowed?: ((request: FastifyRequest) => ApiError | undefined) | undefined;
  knownError?: ((err: FastifyError) => ApiError | undefined) | undefined;
  /** How an error is shown: `{ error, code }` JSON unless the listener shows pages (the web app). */
  renderError?: ((reply: FastifyReply, error: ApiError) => FastifyReply) | undefined;
}

/**
 * Renders every error as `{ error, code }`. Anything that is not an ApiError, a validation
 * failure or a known client error is logged with the request id and answered with the
 * generic 500. A failure of a database outage is counted and logged at debug: the outage
 * itself is logged once, where it starts and ends (the composition root).
 */
export function installErrorHandlers(app: FastifyInstance, rendering: ErrorRendering): void {
  const { failures, unauthorized } = httpMetrics(rendering.metrics);
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(err, request, rendering);
    if (err instanceof DatabaseUnavailableError) {
      request.quietCompletion = true;
      failures.inc({ reason: 'database_unavailable' });
      request.log.debug({ err: err.cause }, 'request failed: the database is unreachable');
    } else if (apiError.code === 'internal_error') {
      failures.inc({ reason: 'error' });
      request.log.error({ err }, 'request failed');
    } else if (apiError.code === 'unauthorized') {
      unauthorized.inc();
    }
    return send(reply, apiError, rendering);
  });

  app.setNotFoundHandler((request, reply) =>
    // Any method the router has no route for (TRACE, PROPFIND, LOCK, …) on a known path.
    send(reply, rendering.methodNotAllowed?.(request) ?? apiErrors.routeNotFound(), rendering),
  );

  // An error answer is about this request only: never to be stored by a cache.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode >= 400) reply.header('Cache-Control', 'no-store');
    return payload;
  });
}

function send(reply: FastifyReply, error: ApiError, rendering: ErrorRendering) {
  reply.code(error.statusCode).headers(error.headers);
  if (rendering.renderError) return rendering.renderError(reply, error);
  return reply.send({ error: error.message, code: error.code });
}

/**
 * Errors Fastify raises before routing skip the error handler; they are mapped by the same
 * rules here. (Room ids of any length or encoding do not end up here: rewriteUrl and
 * maxParamLength in app.ts route them to the room's 404 like any other id.)
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error, request);
  request.log.info({ code: error.code }, 'request refused before routing');
  reply
    .code(apiError.statusCode)
    .header('X-Request-Id', request.id)
    .header('Cache-Control', 'no-store')
    .send({ error: apiError.message, code: apiError.code });
}

/** A request too malformed for HTTP parsing: answered on the socket, in the same shape. */
export function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  socket.end(
    rawErrorResponse(status, status === 431 ? 'Request Header Fields Too Large' : 'Bad Request', {
      error: 'The request could not be understood',
      code: 'validation_error',
    }),
  );
}

/** A whole HTTP response in the usual error shape, for answers written before Fastify routes. */
export function rawErrorResponse(
  status: number,
  reason: string,
  body: { error: string; code: string },
): string {
  const text = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
    `X-Request-Id: ${randomUUID()}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${text}`
  );
}

function toApiError(
  err: FastifyError | ApiError,
  request: FastifyRequest,
  rendering?: ErrorRendering,
): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DatabaseBusyError) return apiErrors.busy();
  if (err.validation) {
    return new ApiError(
      'validation_error',
      rendering
        ? rendering.validationMessage(err, request)
        : queryErrorMessage(err.validation, request.query),
    );
  }
  const known = rendering?.knownError?.(err);
  if (known) return known;
  // Fastify's own client errors (a malformed header, an unsupported body); their messages
  // name no internals, but a 5xx never gets through here.
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError('validation_error', 'The request could not be understood');
  }
  return new ApiError('internal_error', INTERNAL_ERROR_MESSAGE);
}

import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DatabaseBusyError } from '../db/database.ts';
import { queryErrorMessage } from './query.ts';

/** The closed set of error codes and the one status each maps to. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  download_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  rate_limit: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type handlers throw; rendered as `{ error, code }` with its status. */
export class ApiError extends Error {
  readonly statusCode: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.statusCode = ERROR_STATUS[code];
  }
}

export const INTERNAL_ERROR_MESSAGE = 'An unexpected error occurred';

export const apiErrors = {
  keyRequired: () => new ApiError('unauthorized', 'API key is required', { 'WWW-Authenticate': 'Bearer' }),
  invalidKey: () => new ApiError('unauthorized', 'Invalid API key', { 'WWW-Authenticate': 'Bearer' }),
  dealRoomNotFound: () => new ApiError('not_found', 'Deal room not found'),
  routeNotFound: () => new ApiError('not_found', 'Not found'),
  methodNotAllowed: () => new ApiError('method_not_allowed', 'Method not allowed', { Allow: 'GET, HEAD' }),
  busy: () =>
    new ApiError('service_unavailable', 'Service is busy, try again shortly', {
      'Retry-After': String(BUSY_RETRY_AFTER_SECONDS),
    }),
};

/** What a 503 tells a client to wait: the database queue clears in well under that. */
const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Renders every error as `{ error, code }`. Anything that is not an ApiError or a
 * validation failure is logged with the request id and answered with the generic 500.
 */
export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | ApiError, request, reply) => {
    const apiError = toApiError(err, request.query);
    if (apiError.code === 'internal_error') {
      request.log.error({ err }, 'request failed');
    }
    return reply
      .code(apiError.statusCode)
      .headers(apiError.headers)
      .send({ error: apiError.message, code: apiError.code });
  });

  app.setNotFoundHandler((_request, reply) => {
    const err = apiErrors.routeNotFound();
    return reply.code(err.statusCode).send({ error: err.message, code: err.code });
  });
}

/**
 * Errors Fastify raises before routing skip the error handler; they are mapped by the same
 * rules here. (Room ids of any length or encoding do not end up here: rewriteUrl and
 * maxParamLength in app.ts route them to the room's 404 like any other id.)
 */
export function frameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const apiError = toApiError(error, request.query);
  request.log.info({ code: error.code }, 'request refused before routing');
  reply
    .code(apiError.statusCode)
    .header('X-Request-Id', request.id)
    .send({ error: apiError.message, code: apiError.code });
}

/** A request too malformed for HTTP parsing: answered on the socket, in the same shape. */
export function clientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) return;
  const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = JSON.stringify({ error: 'The request could not be understood', code: 'validation_error' });
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}

function toApiError(err: FastifyError | ApiError, query: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof DatabaseBusyError) return apiErrors.busy();
  if (err.validation && err.validationContext === 'querystring') {
    return new ApiError('validation_error', queryErrorMessage(err.validation, query));
  }
  // Fastify's own client errors (a malformed header, an unsupported body); their messages
  // name no internals, but a 5xx never gets through here.
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return new ApiError('validation_error', 'The request could not be understood');
  }
  return new ApiError('internal_error', INTERNAL_ERROR_MESSAGE);
}

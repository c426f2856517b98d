/** The closed set of error codes and the one status each maps to. */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  download_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Every error code, in the order of the table. */
export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

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
  teamNotFound: () => new ApiError('not_found', 'Team not found'),
  routeNotFound: () => new ApiError('not_found', 'Not found'),
  methodNotAllowed: () => new ApiError('method_not_allowed', 'Method not allowed', { Allow: 'GET, HEAD' }),
  busy: () =>
    new ApiError('service_unavailable', 'Service is busy, try again shortly', {
      'Retry-After': String(BUSY_RETRY_AFTER_SECONDS),
    }),
};

/** What a 503 tells a client to wait: the database queue clears in well under that. */
const BUSY_RETRY_AFTER_SECONDS = 1;

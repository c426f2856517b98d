import { ApiError, ERROR_STATUS, ERRORS, type ErrorName, type NamedError } from '../core/errors.ts';

/** A page answered instead of what was asked (a 403, 404, 409 or 429), rendered by the web app. */
export class DashboardError extends ApiError {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 413 | 415 | 422 | 429,
    readonly title: string,
    readonly detail: string,
    headers: Record<string, string> = {},
  ) {
    // The codes are the API's closed set; a page shows only its title and words.
    const code = (
      {
        400: 'validation_error',
        403: 'download_denied',
        404: 'not_found',
        409: 'conflict',
        413: 'payload_too_large',
        415: 'unsupported_media_type',
        422: 'unprocessable_file',
        429: 'rate_limit',
      } as const
    )[status];
    super(code, title, headers);
  }
}

/** A named error (core/errors.ts) as the dashboard's page: its title, and its message or the words given. */
export function refusal(
  name: ErrorName,
  o: { detail?: string | undefined; headers?: Record<string, string> } = {},
): DashboardError {
  const named: NamedError = ERRORS[name];
  const status = (named.status ?? ERROR_STATUS[named.code]) as DashboardError['status'];
  return new DashboardError(status, named.title ?? named.message, o.detail ?? named.message, o.headers);
}

export const notFound = () => refusal('notYours');

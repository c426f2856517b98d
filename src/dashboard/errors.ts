import { ApiError } from '../core/errors.ts';

/** A page answered instead of what was asked (a 403, 404, 409 or 429), rendered by the web app. */
export class DashboardError extends ApiError {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 413 | 415 | 429,
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
        429: 'rate_limit',
      } as const
    )[status];
    super(code, title, headers);
  }
}

export const notFound = () =>
  new DashboardError(404, 'Not found', 'There is nothing at this address, or it is not your team’s.');

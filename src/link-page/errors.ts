import { ApiError, ERROR_STATUS, ERRORS, type ErrorName, type NamedError } from '../core/errors.ts';

/** A page to answer instead of what was asked, with its status: rendered by the web app's error renderer. */
export class PageError extends ApiError {
  constructor(
    readonly status: 403 | 404 | 410 | 422 | 429,
    readonly title: string,
    readonly detail: string,
    headers: Record<string, string> = {},
    /** Where the person can go next from the page: its address and words. */
    readonly next?: { href: string; label: string },
  ) {
    const code = (
      {
        403: 'download_denied',
        404: 'not_found',
        410: 'not_found',
        422: 'unprocessable_file',
        429: 'rate_limit',
      } as const
    )[status];
    super(code, title, headers);
  }
}

/** A named error (core/errors.ts) as a recipient's page, with where to go next. */
export function linkRefusal(
  name: ErrorName,
  o: { detail?: string; headers?: Record<string, string>; next?: { href: string; label: string } } = {},
): PageError {
  const named: NamedError = ERRORS[name];
  const status = (named.status ?? ERROR_STATUS[named.code]) as PageError['status'];
  return new PageError(status, named.title ?? named.message, o.detail ?? named.message, o.headers, o.next);
}

export const NO_LINK = () => linkRefusal('noSuchLink');
export const NOT_ACTIVE = () => linkRefusal('linkNotActive');
export const NO_DOCUMENT = () => linkRefusal('documentNotAvailable');

/** A refusal of the domain (a link turned off between two requests, say) as the page it means. */
export function asPage(err: unknown): unknown {
  if (!(err instanceof ApiError) || err instanceof PageError) return err;
  if (err.code === 'not_found') return NO_LINK();
  if (err.code === 'conflict') return NOT_ACTIVE();
  if (err.code === 'unprocessable_file') return linkRefusal('unprocessableFile');
  return err;
}

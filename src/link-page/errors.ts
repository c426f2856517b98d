import { ApiError } from '../core/errors.ts';

/** A page to answer instead of what was asked, with its status: rendered by the web app's error renderer. */
export class PageError extends ApiError {
  constructor(
    readonly status: 403 | 404 | 410 | 429,
    readonly title: string,
    readonly detail: string,
    headers: Record<string, string> = {},
    /** Where the person can go next from the page: its address and words. */
    readonly next?: { href: string; label: string },
  ) {
    const code = ({ 403: 'download_denied', 404: 'not_found', 410: 'not_found', 429: 'rate_limit' } as const)[
      status
    ];
    super(code, title, headers);
  }
}

export const NO_LINK = () =>
  new PageError(404, 'This link does not exist', 'Check the address you were given.');
export const NOT_ACTIVE = () =>
  new PageError(
    410,
    'This link is no longer active',
    'The people who shared it have turned it off or let it expire. Ask them for a new one.',
  );
export const NO_DOCUMENT = () =>
  new PageError(404, 'This document is not available', 'It may have been removed from this link.');

/** A refusal of the domain (a link turned off between two requests, say) as the page it means. */
export function asPage(err: unknown): unknown {
  if (!(err instanceof ApiError) || err instanceof PageError) return err;
  if (err.code === 'not_found') return NO_LINK();
  if (err.code === 'conflict') return NOT_ACTIVE();
  return err;
}

/** The six read operations, each at /v1 + path. Used for routing and for 405 answers. */
export const V1_PATHS = [
  '/deal-rooms',
  '/deal-rooms/:id',
  '/deal-rooms/:id/documents',
  '/deal-rooms/:id/links',
  '/deal-rooms/:id/viewers',
  '/deal-rooms/:id/analytics',
] as const;

/** The same paths as one pattern over a request URL (a parameter is any one segment). */
const V1_PATTERN = new RegExp(
  `^/v1(${V1_PATHS.map((path) => path.replaceAll(':id', '[^/]+')).join('|')})/?$`,
);

/** Whether a URL (its query ignored) is one of the read API's paths. */
export function isV1Path(url: string): boolean {
  return V1_PATTERN.test(url.split('?')[0] ?? '');
}

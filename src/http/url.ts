/**
 * The URL with every path segment that is not valid percent-encoding escaped as literal
 * text (`%ZZ` becomes `%25ZZ`), so the router can decode it and the segment reaches its
 * handler as the odd string it is, instead of failing before routing.
 */
export function decodableUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const rest = queryAt === -1 ? '' : url.slice(queryAt);
  const segments = path.split('/').map((segment) => {
    try {
      decodeURIComponent(segment);
      return segment;
    } catch {
      return segment.replaceAll('%', '%25');
    }
  });
  return segments.join('/') + rest;
}

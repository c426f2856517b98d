import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Success responses get a weak ETag and may not be reused without revalidation; a matching
 * If-None-Match turns the response into a 304 with no body. The ETag is the route's own
 * when it set one (derived from what the body was rendered from), or else a hash of the body.
 */
export async function conditionalGet(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const own = reply.getHeader('etag');
  const etag =
    typeof own === 'string'
      ? own
      : `W/"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
  if (notModified(request, reply, etag)) {
    reply.removeHeader('Content-Type');
    reply.removeHeader('Content-Length');
    return '';
  }
  return payload;
}

/**
 * Sets the caching headers of a success with this ETag; when the request's If-None-Match
 * matches it, also the 304 status (the caller then sends no body) and answers true.
 */
export function notModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('ETag', etag);
  reply.header('Cache-Control', 'private, no-cache');
  reply.header('Vary', 'Authorization, X-API-Key');
  if (!matches(request.headers['if-none-match'], etag)) return false;
  reply.code(304);
  return true;
}

/** If-None-Match uses the weak comparison: W/ prefixes are ignored. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

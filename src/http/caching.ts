import type { FastifyReply, FastifyRequest } from 'fastify';
import { bodyEtag, notModified } from '../routing/caching.ts';

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
  const etag = typeof own === 'string' ? own : bodyEtag(payload);
  if (notModified(request, reply, etag)) {
    reply.removeHeader('Content-Type');
    reply.removeHeader('Content-Length');
    return '';
  }
  return payload;
}

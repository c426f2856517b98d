import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Success responses get a weak ETag of their body and may not be reused without
 * revalidation; a matching If-None-Match turns the response into a 304 with no body.
 */
export async function conditionalGet(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): Promise<unknown> {
  if (reply.statusCode !== 200 || typeof payload !== 'string') return payload;
  const etag = `W/"${createHash('sha256').update(payload).digest('base64url').slice(0, 27)}"`;
  reply.header('ETag', etag);
  reply.header('Cache-Control', 'private, no-cache');
  reply.header('Vary', 'Authorization, X-API-Key');
  if (matches(request.headers['if-none-match'], etag)) {
    reply.code(304);
    reply.removeHeader('Content-Type');
    reply.removeHeader('Content-Length');
    return '';
  }
  return payload;
}

/** If-None-Match uses the weak comparison: W/ prefixes are ignored. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === opaque);
}

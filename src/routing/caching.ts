import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A body's weak ETag: a hash of its bytes. */
export function bodyEtag(body: string): string {
  return `W/"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
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

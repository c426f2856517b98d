import type { FastifyRequest } from 'fastify';
import type { Database } from '../db/database.ts';
import { hashApiKey, hashesEqual, isWellFormedApiKey } from '../keys/format.ts';
import { findActiveKeyByHash, touchKey } from '../keys/repo.ts';
import type { Clock } from '../shared/clock.ts';
import { apiErrors } from './errors.ts';

export interface Caller {
  keyId: string;
  teamId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const LAST_USED_INTERVAL_MS = 60_000;

/** The key a request presents: `Authorization: Bearer` wins over `X-API-Key`; blank is none. */
export function presentedKey(request: FastifyRequest): string | undefined {
  const authorization = headerValue(request.headers.authorization);
  if (authorization !== undefined) {
    const match = /^bearer(?:\s+(.*))?$/i.exec(authorization);
    // Another scheme (Basic, ...) is a key presented in a form we do not accept.
    if (!match) return authorization;
    const token = match[1]?.trim();
    if (token) return token;
  }
  return headerValue(request.headers['x-api-key']);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

/**
 * Resolves the presented key to its team on every request: no cache, so a revoked key
 * fails on its next request in every process. `lastUsedAt` is written at most once a
 * minute per key and process, off the request's path.
 */
export function createAuthenticator(db: Database, clock: Clock) {
  const lastTouched = new Map<string, number>();

  return async function authenticate(request: FastifyRequest): Promise<Caller> {
    const key = presentedKey(request);
    if (key === undefined) throw apiErrors.keyRequired();
    if (!isWellFormedApiKey(key)) throw apiErrors.invalidKey();

    const hash = hashApiKey(key);
    const found = await findActiveKeyByHash(db, hash);
    if (!found || !hashesEqual(found.keyHash, hash)) throw apiErrors.invalidKey();

    const now = clock.now();
    const touched = lastTouched.get(found.id);
    if (touched === undefined || now.getTime() - touched >= LAST_USED_INTERVAL_MS) {
      lastTouched.set(found.id, now.getTime());
      touchKey(db, found.id, now, LAST_USED_INTERVAL_MS).catch((err: unknown) =>
        request.log.warn({ err }, 'could not record key use'),
      );
    }
    return { keyId: found.id, teamId: found.teamId };
  };
}

import type { FastifyRequest } from 'fastify';
import type { Clock } from '../core/clock.ts';
import { apiErrors } from '../core/errors.ts';
import type { Database } from '../db/database.ts';
import { hashApiKey, hashesEqual, isWellFormedApiKey, KEY_SHAPE } from '../keys/format.ts';
import { type ActiveKey, findActiveKeyByHash, touchKey } from '../keys/repo.ts';

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
/** How long a lookup is reused: the contract lets a revoked key work for up to one second. */
export const KEY_CACHE_MS = 1000;
const KEY_CACHE_ENTRIES = 10_000;

/** A header sent twice can hide which key was meant: such a request presents an invalid key. */
const REPEATED = Symbol('repeated key header');

/** The key a request presents: `Authorization: Bearer` wins over `X-API-Key`; blank is none. */
export function presentedKey(request: FastifyRequest): string | undefined | typeof REPEATED {
  if (sentTwice(request.raw.rawHeaders)) return REPEATED;
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

function sentTwice(rawHeaders: string[]): boolean {
  let authorization = 0;
  let apiKey = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]?.toLowerCase();
    if (name === 'authorization') authorization++;
    else if (name === 'x-api-key') apiKey++;
  }
  return authorization > 1 || apiKey > 1;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text : undefined;
}

/**
 * Resolves the presented key to its team. A lookup, found or not, is reused for one second
 * (KEY_CACHE_MS), so a busy client costs one lookup a second and a revoked key fails within
 * a second on every process, as the contract allows. `lastUsedAt` is written at most once a
 * minute per key and process, off the request's path.
 */
export function createAuthenticator(db: Database, clock: Clock) {
  const lastTouched = new Map<string, number>();
  const cache = new Map<string, { key: ActiveKey | undefined; until: number }>();

  /**
   * The active key with this hash. A miss checks the key's checksum first (a mistyped key
   * costs no lookup, and is not kept) and the stored hash in constant time; a hit has done
   * both already, so a busy key costs one hash per request.
   */
  const lookUp = async (presented: string, hash: string, nowMs: number): Promise<ActiveKey | undefined> => {
    const hit = cache.get(hash);
    if (hit && hit.until > nowMs) return hit.key;
    if (!isWellFormedApiKey(presented)) return undefined;
    const row = await findActiveKeyByHash(db, hash);
    const key = row && hashesEqual(row.keyHash, hash) ? row : undefined;
    cache.delete(hash);
    if (cache.size >= KEY_CACHE_ENTRIES) {
      // Oldest first: a Map iterates in insertion order.
      for (const [stale] of cache) {
        cache.delete(stale);
        if (cache.size < KEY_CACHE_ENTRIES / 2) break;
      }
    }
    cache.set(hash, { key, until: nowMs + KEY_CACHE_MS });
    return key;
  };

  return async function authenticate(request: FastifyRequest): Promise<Caller> {
    const key = presentedKey(request);
    if (key === undefined) throw apiErrors.keyRequired();
    if (key === REPEATED || !KEY_SHAPE.test(key)) throw apiErrors.invalidKey();

    const now = clock.now();
    const found = await lookUp(key, hashApiKey(key), now.getTime());
    if (!found) throw apiErrors.invalidKey();

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

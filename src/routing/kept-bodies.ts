import { LRUCache } from 'lru-cache';
import { bodyEtag } from './caching.ts';

/** A response body as rendered once, with its ETag (a hash of it, made once). */
export interface KeptBody {
  body: string;
  etag: string;
}

/**
 * Rendered response bodies kept per process, each valid while the stamp it was rendered at
 * still holds (a version the request reads in its one query) and until a moment its contents
 * change by the clock alone (a link's expiry): the rooms' analytics and their lists. Least
 * recently used first out, within `maxBytes`; 0 keeps none.
 */
export interface KeptBodies {
  get(key: string, stamp: string, now: number): KeptBody | undefined;
  /** Keeps a body rendered at `stamp`, valid before `until` (ms since the epoch). */
  set(key: string, stamp: string, body: string, until?: number): KeptBody;
}

export function keptBodies(maxBytes: number): KeptBodies {
  const made = (body: string): KeptBody => ({ body, etag: bodyEtag(body) });
  if (maxBytes <= 0) return { get: () => undefined, set: (_key, _stamp, body) => made(body) };
  const kept = new LRUCache<string, KeptBody & { stamp: string; until: number }>({
    maxSize: maxBytes,
    // UTF-16 in memory, and the entry's own overhead.
    sizeCalculation: (entry) => 2 * (entry.body.length + entry.stamp.length + entry.etag.length) + 200,
  });
  return {
    get(key, stamp, now) {
      const entry = kept.get(key);
      return entry && entry.stamp === stamp && now < entry.until ? entry : undefined;
    },
    set(key, stamp, body, until = Number.POSITIVE_INFINITY) {
      const entry = { ...made(body), stamp, until };
      kept.set(key, entry);
      return entry;
    },
  };
}

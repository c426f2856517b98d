import { LRUCache } from 'lru-cache';

/**
 * Rendered analytics bodies, kept per process: one per (room, period), valid while the room's
 * figures version and the UTC day it was rendered at still hold (the delta module adds one to
 * the version in the transaction of every change, so a body is never served past a write,
 * whichever process wrote). Least recently used first out, within `maxBytes`; 0 keeps none.
 */
export interface KeptAnalytics {
  get(roomId: string, period: string, stamp: string): string | undefined;
  set(roomId: string, period: string, stamp: string, body: string): void;
}

export function keptAnalytics(maxBytes: number): KeptAnalytics {
  if (maxBytes <= 0) return { get: () => undefined, set: () => undefined };
  const kept = new LRUCache<string, { stamp: string; body: string }>({
    maxSize: maxBytes,
    // UTF-16 in memory, and the entry's own overhead.
    sizeCalculation: (entry) => 2 * (entry.body.length + entry.stamp.length) + 160,
  });
  return {
    get(roomId, period, stamp) {
      const entry = kept.get(`${roomId} ${period}`);
      return entry?.stamp === stamp ? entry.body : undefined;
    },
    set(roomId, period, stamp, body) {
      kept.set(`${roomId} ${period}`, { stamp, body });
    },
  };
}

import { describe, expect, it } from 'vitest';
import { keptBodies } from './kept-bodies.ts';

describe('kept bodies', () => {
  it('holds a body only for the stamp it was rendered at, and drops the least recently used past its size', () => {
    const kept = keptBodies(3000);
    kept.set('room-a 7d', '1.2026-05-20', 'a'.repeat(500));
    expect(kept.get('room-a 7d', '1.2026-05-20', 0)?.body).toHaveLength(500);
    expect(kept.get('room-a 7d', '2.2026-05-20', 0)).toBeUndefined();
    expect(kept.get('room-a 30d', '1.2026-05-20', 0)).toBeUndefined();
    kept.set('room-b 7d', '1.2026-05-20', 'b'.repeat(500));
    kept.get('room-a 7d', '1.2026-05-20', 0);
    kept.set('room-c 7d', '1.2026-05-20', 'c'.repeat(500));
    expect(kept.get('room-b 7d', '1.2026-05-20', 0)).toBeUndefined();
    expect(kept.get('room-a 7d', '1.2026-05-20', 0)).toBeDefined();
    expect(kept.get('room-c 7d', '1.2026-05-20', 0)).toBeDefined();
    const none = keptBodies(0);
    none.set('room-a 7d', '1', 'body');
    expect(none.get('room-a 7d', '1', 0)).toBeUndefined();
  });

  it('holds a body for its stamp and until its moment, with the ETag of its bytes; 0 keeps none', () => {
    const kept = keptBodies(10_000);
    const body = kept.set('a', '1', '{"data":[]}', 1000);
    expect(body.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect(kept.get('a', '1', 999)).toEqual(
      expect.objectContaining({ body: '{"data":[]}', etag: body.etag }),
    );
    expect(kept.get('a', '1', 1000)).toBeUndefined();
    expect(kept.get('a', '2', 0)).toBeUndefined();
    expect(kept.get('b', '1', 0)).toBeUndefined();
    const none = keptBodies(0);
    expect(none.set('a', '1', 'x').etag).toBe(keptBodies(1).set('b', '9', 'x').etag);
    expect(none.get('a', '1', 0)).toBeUndefined();
  });
});

import { randomFillSync } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');
const text = Buffer.alloc(36);
const pool = Buffer.alloc(16 * 256);
let poolOffset = pool.length;

/**
 * A new id for rows the service creates (viewers, visits, views, downloads): a UUIDv7, whose
 * leading 48 bits are the time in milliseconds, so new rows land at the end of the primary
 * key's index instead of at random pages of it. The other 74 bits are random.
 */
export function newId(now = Date.now()): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const b = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  let ms = now;
  for (let i = 5; i >= 0; i--) {
    b[i] = ms % 256;
    ms = Math.floor(ms / 256);
  }
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x70;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  // Written as ASCII into one buffer and read back once: a flat string, where joining 20
  // pieces would leave a rope of them (an import holds many of these at a time).
  let at = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[at++] = 0x2d;
    const byte = b[i] ?? 0;
    text[at++] = HEX_DIGITS[byte >> 4] as number;
    text[at++] = HEX_DIGITS[byte & 15] as number;
  }
  return text.toString('latin1', 0, 36);
}

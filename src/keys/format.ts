import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API key format: `dr_live_` + 32 random base62 characters + a 6-character checksum of
 * them. The checksum lets the server refuse a mistyped key without a database lookup.
 */
export const KEY_PREFIX = 'dr_live_';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** The shape of a key, its checksum unchecked. */
export const KEY_SHAPE = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
/** Characters of a key that may be shown to tell keys apart. */
export const DISPLAY_PREFIX_LENGTH = KEY_PREFIX.length + 4;

export function generateApiKey(): string {
  const random = randomBase62(RANDOM_LENGTH);
  return `${KEY_PREFIX}${random}${checksum(random)}`;
}

/** True when `key` has the shape of a key and its checksum matches. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_SHAPE.test(key)) return false;
  const body = key.slice(KEY_PREFIX.length);
  const expected = Buffer.from(checksum(body.slice(0, RANDOM_LENGTH)));
  const actual = Buffer.from(body.slice(RANDOM_LENGTH));
  return timingSafeEqual(expected, actual);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two hex hashes. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

function checksum(random: string): string {
  const digest = createHash('sha256').update(random).digest();
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) out += ALPHABET[(digest[i] ?? 0) % ALPHABET.length];
  return out;
}

function randomBase62(length: number): string {
  let out = '';
  // Rejection sampling keeps every character uniformly likely: 248 = 4 * 62.
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62];
    }
  }
  return out;
}

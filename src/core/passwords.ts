import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost today (OWASP: N=2^17, r=8, p=1); each hash names its own, so it can rise. */
const COST = { N: 2 ** 17, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

type Cost = { N: number; r: number; p: number };

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  // 128 · N · r bytes of memory, above Node's 32 MiB default at this cost.
  const maxmem = 256 * cost.N * cost.r;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** `scrypt$N=…,r=…,p=…$<salt>$<hash>`, salt and hash in base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, COST);
  return `scrypt$N=${COST.N},r=${COST.r},p=${COST.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/**
 * Whether `password` is the one `stored` was made from, compared in constant time. A hash
 * without its cost (`scrypt$<salt>$<hash>`, written before costs were named) is N=2^14.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts[0] !== 'scrypt' || (parts.length !== 3 && parts.length !== 4)) return false;
  const named = parts.length === 4 ? /^N=(\d+),r=(\d+),p=(\d+)$/.exec(parts[1] ?? '') : undefined;
  if (named === null) return false;
  const cost = named
    ? { N: Number(named[1]), r: Number(named[2]), p: Number(named[3]) }
    : { N: 2 ** 14, r: 8, p: 1 };
  const salt = Buffer.from(parts.at(-2) ?? '', 'base64url');
  const expected = Buffer.from(parts.at(-1) ?? '', 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  return timingSafeEqual(await derive(password, salt, cost), expected);
}

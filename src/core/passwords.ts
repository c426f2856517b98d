import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

type Cost = { N: number; r: number; p: number };

/** scrypt's N today (OWASP: N=2^17, r=8, p=1); each hash names its own, so it can rise. */
export const DEFAULT_SCRYPT_N = 2 ** 17;
const KEY_LENGTH = 32;

/**
 * The N of new hashes that `PASSWORD_SCRYPT_N` asks for: a power of two from 2^10 to 2^20,
 * else undefined. A test suite lowers it, since it hashes hundreds of passwords and a hash at
 * 2^17 is most of a second of one core. Hashes verify at the cost they name, whatever this is.
 */
export function scryptN(raw: string): number | undefined {
  const N = /^[1-9]\d{3,6}$/.test(raw) ? Number(raw) : 0;
  return N >= 2 ** 10 && N <= 2 ** 20 && (N & (N - 1)) === 0 ? N : undefined;
}

/** Today's cost; a `PASSWORD_SCRYPT_N` out of range keeps the default (config.ts refuses it at start). */
export function scryptCost(env: NodeJS.ProcessEnv = process.env): Cost {
  const raw = env.PASSWORD_SCRYPT_N;
  return { N: (raw && scryptN(raw)) || DEFAULT_SCRYPT_N, r: 8, p: 1 };
}

const COST = scryptCost();

function derive(password: string, salt: Buffer, cost: Cost): Promise<Buffer> {
  // 128 · N · r bytes of memory, above Node's 32 MiB default at this cost.
  const maxmem = 256 * cost.N * cost.r;
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

const format = (cost: Cost, salt: Buffer, hash: Buffer) =>
  `scrypt$N=${cost.N},r=${cost.r},p=${cost.p}$${salt.toString('base64url')}$${hash.toString('base64url')}`;

/** `scrypt$N=…,r=…,p=…$<salt>$<hash>`, salt and hash in base64url. */
export async function hashPassword(password: string, cost: Cost = COST): Promise<string> {
  const salt = randomBytes(16);
  return format(cost, salt, await derive(password, salt, cost));
}

/**
 * A hash no password matches, at today's cost: checked when an account does not exist, so
 * that costs what a wrong password does and timing tells nothing.
 */
export const UNMATCHABLE_HASH = format(COST, Buffer.alloc(16), Buffer.alloc(KEY_LENGTH));

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

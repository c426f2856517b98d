import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.ts';
import {
  DEFAULT_SCRYPT_N,
  hashPassword,
  scryptCost,
  scryptN,
  UNMATCHABLE_HASH,
  verifyPassword,
} from './passwords.ts';

describe('passwords', () => {
  it('are hashed with scrypt at N=2^17, r=8, p=1 unless told otherwise, with a salt of their own', async () => {
    expect(scryptCost({})).toEqual({ N: DEFAULT_SCRYPT_N, r: 8, p: 1 });
    expect(DEFAULT_SCRYPT_N).toBe(131072);
    const stored = await hashPassword('correct horse', scryptCost({}));
    expect(stored).toMatch(/^scrypt\$N=131072,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct hors', stored)).toBe(false);
  });

  it('take a lower N from PASSWORD_SCRYPT_N (the test suite), and every hash verifies at the cost it names', async () => {
    expect(scryptCost({ PASSWORD_SCRYPT_N: '1024' })).toEqual({ N: 1024, r: 8, p: 1 });
    expect(scryptCost({ PASSWORD_SCRYPT_N: '' }).N).toBe(DEFAULT_SCRYPT_N);
    expect(scryptN('1048576')).toBe(2 ** 20);
    for (const bad of ['1000', '512', '2097152', '0x400', '-1024', '1024.0', '01024', 'fast']) {
      expect(scryptN(bad), bad).toBeUndefined();
      // Never weaker by mistake: a value out of range keeps the default (and `serve` refuses it).
      expect(scryptCost({ PASSWORD_SCRYPT_N: bad }).N, bad).toBe(DEFAULT_SCRYPT_N);
    }
    const low = await hashPassword('correct horse', { N: 1024, r: 8, p: 1 });
    expect(low).toMatch(/^scrypt\$N=1024,r=8,p=1\$/);
    expect(await hashPassword('correct horse', { N: 1024, r: 8, p: 1 })).not.toBe(low);
    expect(await verifyPassword('correct horse', low)).toBe(true);
    expect(await verifyPassword('correct hors', low)).toBe(false);
  });

  it('refuses to start with a PASSWORD_SCRYPT_N out of range, naming it', () => {
    expect(() => loadConfig({ PASSWORD_SCRYPT_N: '1000' })).toThrow(ConfigError);
    expect(() => loadConfig({ PASSWORD_SCRYPT_N: '1000' })).toThrow(
      'PASSWORD_SCRYPT_N must be a power of two from 1024 to 1048576',
    );
    expect(() => loadConfig({ PASSWORD_SCRYPT_N: '4096' })).not.toThrow();
  });

  it('has a hash at the running cost that no password matches, for accounts that do not exist', async () => {
    expect(UNMATCHABLE_HASH).toMatch(
      new RegExp(`^scrypt\\$N=${scryptCost().N},r=8,p=1\\$[\\w-]{22}\\$[\\w-]{43}$`),
    );
    expect(await verifyPassword('', UNMATCHABLE_HASH)).toBe(false);
    expect(await verifyPassword('password', UNMATCHABLE_HASH)).toBe(false);
  });

  it('still verifies a hash written before costs were named (N=2^14)', async () => {
    const salt = randomBytes(16);
    const old = `scrypt$${salt.toString('base64url')}$${scryptSync('demo-password', salt, 32).toString('base64url')}`;
    expect(await verifyPassword('demo-password', old)).toBe(true);
    expect(await verifyPassword('demo', old)).toBe(false);
    for (const bad of ['', 'scrypt$', 'bcrypt$x$y', 'scrypt$N=1,r=x,p=1$a$b', `${old}x`]) {
      expect(await verifyPassword('demo-password', bad), bad).toBe(false);
    }
  });
});

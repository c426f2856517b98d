import { randomBytes, scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from './passwords.ts';

describe('link passwords', () => {
  it('are hashed with scrypt at N=2^17, r=8, p=1, a salt of their own, and verified', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$N=131072,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await hashPassword('correct horse')).not.toBe(stored);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct hors', stored)).toBe(false);
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

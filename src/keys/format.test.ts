import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isWellFormedApiKey } from './format.ts';

describe('API key format', () => {
  it('is dr_live_ and 38 base62 characters whose last 6 check the rest', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    for (const key of keys) {
      expect(key).toMatch(/^dr_live_[A-Za-z0-9]{38}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('refuses a key with any one character changed', () => {
    const key = generateApiKey();
    let refused = 0;
    for (let i = 8; i < key.length; i++) {
      const swapped = key[i] === 'A' ? 'B' : 'A';
      if (!isWellFormedApiKey(key.slice(0, i) + swapped + key.slice(i + 1))) refused++;
    }
    // A 6-character checksum can collide, but not on more than a stray position.
    expect(refused).toBeGreaterThanOrEqual(key.length - 8 - 1);
    expect(isWellFormedApiKey(`${key}x`)).toBe(false);
    expect(isWellFormedApiKey(key.replace('dr_live_', 'dr_test_'))).toBe(false);
  });

  it('hashes with SHA-256', () => {
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

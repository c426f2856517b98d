import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'packages/**/*.test.ts'],
    globalSetup: ['src/testing/global-setup.ts'],
    // PGlite boots in a second or two, a PostgreSQL started by a test in a few more; with two
    // forks, their servers and browsers on two cores, a step can take three times as long.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Hundreds of passwords are hashed; at scrypt's N=2^17 each is most of a second of a core.
    // Every spawned `dealroom` inherits it; core/passwords.test.ts checks the default cost.
    env: { PASSWORD_SCRYPT_N: '1024' },
    pool: 'forks',
    // A test file's imports are loaded once per fork, not again for every file (about a tenth
    // of the run). Test files share no state but what they make: no module mocks, no env writes.
    poolOptions: { forks: { maxForks: 2, minForks: 1, isolate: false } },
  },
});

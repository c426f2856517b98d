import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'packages/**/*.test.ts'],
    globalSetup: ['src/testing/global-setup.ts'],
    // PGlite boots in a second or two; a PostgreSQL started by a test in a few more.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});

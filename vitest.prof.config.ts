import { defineConfig } from 'vitest/config';
import LongestFirst from './src/testing/sequencer.ts';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'packages/**/*.test.ts'],
    globalSetup: ['src/testing/global-setup.ts'],
    setupFiles: ['src/testing/each-file.ts'],
    sequence: { sequencer: LongestFirst },
    // PGlite boots in a second or two, a PostgreSQL started by a test in a few more; with four
    // forks, their servers and browsers on two cores, a step can take several times as long.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Hundreds of passwords are hashed; at scrypt's N=2^17 each is most of a second of a core.
    // Every spawned `dealroom` inherits it; core/passwords.test.ts checks the default cost.
    env: { PASSWORD_SCRYPT_N: '1024' },
    pool: 'forks',
    // Four forks on two cores: much of a test's time is spent waiting on a server, a spawned
    // process, a browser or a real clock, and more forks fill it (on an AMD EPYC pair, a fourth
    // took two pairs of runs from 153 to 143 s and from 145 to 134 s, a fifth gained nothing;
    // on a slower Xeon pair a fourth gained nothing). All are kept for the whole run: with
    // isolate off, a fork that vitest 3.2 stops when idle takes the files queued for it along,
    // unreported. A test file's imports are loaded once per fork, not again for every file
    // (about a tenth of the run). Test files share no state but what they make and the emptied
    // in-memory stores a fork lends from suite to suite (testing/lent-stores.ts): no module
    // mocks, no env writes.
    // A fork allocates much and keeps little (apps, stores and responses of suite after suite):
    // a 64 MB young generation scavenges less often and promotes less (about 3% of the run's CPU).
    // The in-memory stores' PGlite runs on V8's baseline WebAssembly compiler alone: its
    // statements here are small and many, and optimising its hot functions in each fork cost more
    // than it saved (the forks' CPU 207 and 210 s with it, 219 and 229 s without, in whole runs).
    // The service keeps V8's defaults: `dealroom serve` on the embedded store with the baseline
    // compiler alone answered most read routes more slowly under load (bench/analysis.md).
    poolOptions: {
      forks: {
        maxForks: 4,
        minForks: 4,
        isolate: false,
        execArgv: ['--max-semi-space-size=64', '--liftoff-only', '--cpu-prof', '--cpu-prof-dir=/tmp/prof'],
      },
    },
  },
});

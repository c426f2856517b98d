import { afterAll } from 'vitest';
import { removeTempDirs } from './temp.ts';

// Run before every test file (vitest.config.ts, setupFiles). With isolation off, a module is
// loaded once per fork, so a hook written at a module's top level would be registered for the
// first test file that imported it and for none after. Registered here, the clean-up runs
// after each file's own hooks, once what used its folders has stopped.
afterAll(removeTempDirs);

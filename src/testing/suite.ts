import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { testApp } from './app.ts';
import { openTestStore, type StoreKind } from './stores.ts';

export interface ApiSuite {
  db: Database;
  api: Awaited<ReturnType<typeof testApp>>;
  clock: ManualClock;
}

/** A store of the given kind and the app on it, for the tests of one describe block. */
export function useApi(kind: StoreKind, now = '2026-05-20T12:00:00.000Z'): ApiSuite {
  const suite = { clock: new ManualClock(now) } as ApiSuite;
  beforeAll(async () => {
    suite.db = await openTestStore(kind);
    suite.api = await testApp(suite.db, suite.clock);
  });
  afterAll(async () => {
    await suite.api?.app.close();
    await suite.db?.close();
  });
  return suite;
}

import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { buildApp } from '../app.ts';
import { systemClock } from '../core/clock.ts';
import { tempDir } from '../testing/temp.ts';
import type { Database } from './database.ts';
import { openEmbedded, StatementTimeoutError } from './embedded.ts';

/** Stores start from the run's templates: booting an empty cluster costs seconds each time. */
const fromTemplate = () => inject('templates').embeddedMigrated;

/**
 * A statement that keeps PGlite busy for a couple of seconds (about 0.5 µs a row): long
 * beside the few milliseconds /healthz takes, even on a loaded machine.
 */
const SLOW = 'SELECT count(*) FROM generate_series(1, 5000000)';
/** One that would run for minutes: only the time limit ends it. */
const ENDLESS = 'SELECT count(*) FROM generate_series(1, 2000000000)';
/**
 * Long enough that a quick statement on a loaded machine (two test files, their servers and
 * a browser on two cores) stays inside it.
 */
const LIMIT_MS = 1500;

describe('the embedded store runs in a worker thread', () => {
  it('keeps the event loop free: /healthz answers while a long statement runs', async () => {
    const db = await openEmbedded(undefined, { statementTimeoutMs: 60_000, loadDataDir: fromTemplate() });
    const app = await buildApp({ db, clock: systemClock, appUrl: 'https://x.test', logger: false });
    try {
      const order: string[] = [];
      const slow = db.query(SLOW).then(() => order.push('slow statement'));
      await new Promise((r) => setTimeout(r, 50)); // the statement is under way in the worker
      const health = await app.inject({ url: '/healthz' });
      order.push('healthz');
      expect(health.statusCode).toBe(200);
      await slow;
      expect(order).toEqual(['healthz', 'slow statement']);
    } finally {
      await app.close();
      await db.close();
    }
  });

  it('cancels a statement past its time limit, and the store works again after, listening as before', async () => {
    const db = await openEmbedded(undefined, { statementTimeoutMs: LIMIT_MS, loadDataDir: fromTemplate() });
    try {
      const heard: string[] = [];
      await db.listen('news', (payload) => heard.push(payload));
      await db.query("SELECT pg_notify('news', 'before')");
      await expect(db.query(ENDLESS)).rejects.toBeInstanceOf(StatementTimeoutError);
      await expect(db.query<{ x: number }>('SELECT 1 AS x')).resolves.toEqual([{ x: 1 }]);
      // The new thread's session listens too; the listener was told that anything may have changed.
      await db.query("SELECT pg_notify('news', 'after')");
      expect(heard).toEqual(['before', '', 'after']);
      // A transaction caught by the timeout fails as a whole, and nothing of it remains.
      await db.exec('CREATE TABLE t (a int)');
      await expectTimedOut(db, 'INSERT INTO t VALUES (1)');
      // In memory, a new worker starts again from where the store started (a folder would be recovered).
      await expect(db.query("SELECT to_regclass('t') IS NULL AS gone")).resolves.toEqual([{ gone: true }]);
    } finally {
      await db.close();
    }
  });

  it('reopens a folder store after a cancelled statement with everything committed before it', async () => {
    const folder = join(tempDir('worker'), 'pgdata');
    cpSync(inject('templates').embeddedEmpty, folder, { recursive: true });
    const db = await openEmbedded(folder, { statementTimeoutMs: LIMIT_MS });
    try {
      await db.exec('CREATE TABLE kept (a int)');
      await db.query('INSERT INTO kept VALUES (1), (2)');
      await expectTimedOut(db, 'INSERT INTO kept VALUES (3)');
      await expect(db.query('SELECT a FROM kept ORDER BY a')).resolves.toEqual([{ a: 1 }, { a: 2 }]);
    } finally {
      await db.close();
    }
  });
});

/** A transaction that writes, then runs past the time limit: it fails as a timeout. */
async function expectTimedOut(db: Database, write: string): Promise<void> {
  await expect(
    db.transaction(async (tx) => {
      await tx.query(write);
      await tx.query(ENDLESS);
    }),
  ).rejects.toBeInstanceOf(StatementTimeoutError);
}

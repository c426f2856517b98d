import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';
import { parseRecord, type RecordType } from './records.ts';
import type { RawRecord } from './sources.ts';
import { ImportWriter } from './writer.ts';

export interface ImportOptions {
  /** Called every `progressEvery` records with the count so far. */
  onProgress?: (records: number) => void;
  progressEvery?: number;
}

export type ImportCounts = Record<RecordType, number>;

/**
 * Loads every record in one transaction: the first bad record (or any failure) rolls the
 * whole import back, leaving the database as it was.
 */
export async function importRecords(
  db: Database,
  clock: Clock,
  source: AsyncIterable<RawRecord> | Iterable<RawRecord>,
  options: ImportOptions = {},
): Promise<ImportCounts> {
  const now = clock.now();
  const every = options.progressEvery ?? 100_000;
  return db.transaction(async (tx) => {
    const writer = new ImportWriter(tx);
    let seen = 0;
    for await (const { type, raw, where } of source) {
      await writer.add(parseRecord(type, raw, where, now));
      seen++;
      if (seen % every === 0) options.onProgress?.(seen);
    }
    await writer.finish();
    return writer.counts;
  });
}

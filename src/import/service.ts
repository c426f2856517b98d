import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { parseRecord, type RecordType } from './records.ts';
import type { RecordBatches } from './sources.ts';
import { ImportWriter } from './writer.ts';

export interface ImportOptions {
  /** Called every `progressEvery` records with the count so far. */
  onProgress?: (records: number) => void;
  progressEvery?: number;
}

export type ImportCounts = Record<RecordType, number>;

/** The longest one statement of an import may run. */
export const IMPORT_STATEMENT_TIMEOUT_MS = 30 * 60 * 1000;
const IMPORT_STATEMENT_TIMEOUT = `${IMPORT_STATEMENT_TIMEOUT_MS}ms`;

/**
 * Loads every record in one transaction: the first bad record (or any failure) rolls the
 * whole import back, leaving the database as it was.
 */
export async function importRecords(
  db: Database,
  clock: Clock,
  source: RecordBatches,
  options: ImportOptions = {},
): Promise<ImportCounts> {
  const now = clock.now();
  const every = options.progressEvery ?? 100_000;
  const counts = await db.transaction(async (tx) => {
    // An import's set-based statements grow with its size: the time limit that guards the
    // API's requests does not apply to them.
    if (db.kind === 'postgres') await tx.query(`SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}'`);
    await tx.query("SELECT set_config('work_mem', $1, true)", [IMPORT_WORK_MEM[db.kind]]);
    const writer = new ImportWriter(tx);
    let seen = 0;
    for await (const batch of source) {
      for (const { type, raw, where } of batch) {
        await writer.add(parseRecord(type, raw, where, now));
        seen++;
        if (seen % every === 0) options.onProgress?.(seen);
      }
    }
    await writer.finish();
    return writer.counts;
  });
  // A large import changes the tables' shape far faster than autovacuum notices: give the
  // planner fresh statistics before the first reads (a sample; about a second at 1M rows).
  if (counts.view + counts.visit + counts.download >= ANALYZE_AFTER_EVENTS) {
    await db.transaction(async (tx) => {
      if (db.kind === 'postgres')
        await tx.query(`SET LOCAL statement_timeout = '${IMPORT_STATEMENT_TIMEOUT}'`);
      await tx.query(`ANALYZE ${ANALYZED_TABLES.join(', ')}`);
    });
    // The rollups are read by index-only scans, which need their pages marked all-visible.
    // They are small (one row per room, day and document or link): a fraction of a second.
    // The rows holding kept figures (a room, its documents, links and viewers, the team) were
    // each rewritten several times by the deltas: every read would walk their dead versions
    // until a vacuum, which autovacuum may not run for minutes (or at all: it is not part of
    // the embedded store). A room list's stamp read 94 buffers instead of 19 (50,000 views).
    await db.query(`VACUUM ${VACUUMED_TABLES.join(', ')}`);
  }
  return counts;
}

/**
 * The memory each sort or hash of the import's set-based statements may take before it goes to
 * disk. On PostgreSQL it is the server's, and sorting and grouping a million staged rows in
 * memory pays. The embedded store's engine runs in the importer's own process, in WebAssembly
 * memory that grows to the most it ever held and never shrinks: at a million views, 128 MB
 * there took the importer's peak from 451 to 706 MiB in the same time (bench/analysis.md).
 */
const IMPORT_WORK_MEM: Record<Database['kind'], string> = { postgres: '128MB', embedded: '8MB' };

const ANALYZE_AFTER_EVENTS = 10_000;
const ANALYZED_TABLES = [
  'viewers',
  'views',
  'visits',
  'downloads',
  'room_daily',
  'room_daily_views',
  'room_daily_visits',
  'room_slots',
  'documents',
  'links',
  'deal_rooms',
];

/** What an import rewrites row by row: the rollups and the rows that hold kept figures. */
const VACUUMED_TABLES = [
  'room_daily',
  'room_daily_views',
  'room_daily_visits',
  'room_slots',
  'teams',
  'deal_rooms',
  'documents',
  'links',
  'viewers',
];

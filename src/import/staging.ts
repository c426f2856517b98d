import { applyImportedEvents } from '../aggregates/imported.ts';
import { DOWNLOAD_COLUMNS, tableRows, VIEW_COLUMNS, VISIT_COLUMNS } from '../aggregates/rows.ts';
import { BinaryCopy, type BinaryCopyType } from '../db/bulk.ts';
import type { Queryable } from '../db/database.ts';

/**
 * An import's events go by COPY, in chunks as the file is read (in COPY's binary format: each
 * field written once into the chunk's bytes, neither made into text nor parsed back), both
 * into their tables and into temporary staging tables (no indexes, no WAL, dropped at commit)
 * that hold just this import's events; the viewers it adds go to a staging table alone. On PostgreSQL the COPYs
 * run while the next chunk is read. At the end the delta module applies the staged events to
 * every derived figure, set-based, and inserts the new viewers with theirs.
 */
const STAGED = {
  views: {
    table: 'views',
    staging: 'import_views',
    columns: VIEW_COLUMNS,
    // A view imported whole is complete: it ended its duration after its start.
    extra: [['completed_at', 'timestamptz']],
  },
  visits: { table: 'visits', staging: 'import_visits', columns: VISIT_COLUMNS, extra: [] },
  downloads: { table: 'downloads', staging: 'import_downloads', columns: DOWNLOAD_COLUMNS, extra: [] },
  viewers: {
    table: undefined,
    staging: 'import_viewers',
    columns: [
      ['id', 'uuid'],
      ['deal_room_id', 'uuid'],
      ['identity', 'text'],
      ['email', 'text'],
      ['created_at', 'timestamptz'],
    ],
    extra: [],
  },
} as const;

export type StagedKind = keyof typeof STAGED;

const CHUNK_ROWS = 10_000;

export class EventStaging {
  /** Each event in its chunk's COPY bytes, written when it is read: nothing else of it is kept. */
  private readonly pending: Record<StagedKind, BinaryCopy> = {
    views: chunkOf('views'),
    visits: chunkOf('visits'),
    downloads: chunkOf('downloads'),
    viewers: chunkOf('viewers'),
  };
  /** The COPY under way: the next one waits for it, so at most one chunk is in flight. */
  private inFlight: Promise<void> = Promise.resolve();
  private created = false;

  constructor(private readonly tx: Queryable) {}

  /**
   * Queues one row, in the order of the kind's columns (STAGED); a full chunk is sent to the
   * database while reading goes on, and only then is there something to wait for.
   */
  add(kind: StagedKind, row: readonly unknown[]): Promise<void> | undefined {
    const chunk = this.pending[kind];
    chunk.add(row);
    return chunk.rows >= CHUNK_ROWS ? this.send(kind) : undefined;
  }

  /**
   * Sends what is left, then applies the staged events to the derived figures. `countsStored`:
   * some of these events are of viewers that were in the database before the import
   * (applyImportedEvents).
   */
  async finish(countsStored: boolean): Promise<void> {
    for (const kind of Object.keys(STAGED) as StagedKind[]) await this.send(kind);
    await this.inFlight;
    if (!this.created) return;
    const staged = (kind: StagedKind) => tableRows(STAGED[kind].staging, STAGED[kind].columns);
    await applyImportedEvents(
      this.tx,
      {
        views: staged('views'),
        visits: staged('visits'),
        downloads: staged('downloads'),
        added: staged('viewers'),
      },
      countsStored,
    );
  }

  private async send(kind: StagedKind): Promise<void> {
    const chunk = this.pending[kind];
    if (chunk.rows === 0) return;
    const bytes = chunk.take();
    await this.inFlight;
    await this.createTables();
    const { table, staging } = STAGED[kind];
    const columns = columnNames(kind);
    const copy = (async () => {
      if (table) await this.tx.copyFrom(table, columns, bytes);
      await this.tx.copyFrom(staging, columns, bytes);
    })();
    // Not awaited here: reading and checking the next chunk overlaps with this COPY. A
    // failure surfaces at the next send or at finish, and fails the import.
    copy.catch(() => undefined);
    this.inFlight = copy;
  }

  private async createTables(): Promise<void> {
    if (this.created) return;
    this.created = true;
    for (const { staging, columns, extra } of Object.values(STAGED)) {
      const definition = [...columns, ...extra].map(([name, type]) => `${name} ${type}`).join(', ');
      await this.tx.query(`CREATE TEMPORARY TABLE ${staging} (${definition}) ON COMMIT DROP`);
    }
  }
}

function columnNames(kind: StagedKind): string[] {
  const { columns, extra } = STAGED[kind];
  return [...columns, ...extra].map(([name]) => name);
}

function chunkOf(kind: StagedKind): BinaryCopy {
  const { columns, extra } = STAGED[kind];
  return new BinaryCopy([...columns, ...extra].map(([, type]): BinaryCopyType => type));
}

import { applyDownloads, applyViewsStarted, applyVisits } from '../aggregates/deltas.ts';
import { DOWNLOAD_COLUMNS, tableRows, VIEW_COLUMNS, VISIT_COLUMNS } from '../aggregates/rows.ts';
import { copyText } from '../db/bulk.ts';
import type { Queryable } from '../db/database.ts';

/**
 * An import's events wait in temporary staging tables (no indexes, no WAL, dropped at commit),
 * filled by COPY in chunks as the file is read. At the end the delta module applies them to
 * every derived figure set-based, and one INSERT … SELECT per table moves them into place.
 */
const STAGED = {
  views: { table: 'import_views', columns: VIEW_COLUMNS },
  visits: { table: 'import_visits', columns: VISIT_COLUMNS },
  downloads: { table: 'import_downloads', columns: DOWNLOAD_COLUMNS },
} as const;

export type StagedKind = keyof typeof STAGED;

const CHUNK_ROWS = 10_000;

export class EventStaging {
  private readonly pending: Record<StagedKind, unknown[][]> = { views: [], visits: [], downloads: [] };
  /** The COPY under way: the next one waits for it, so at most one chunk is in flight. */
  private inFlight: Promise<void> = Promise.resolve();
  private created = false;

  constructor(private readonly tx: Queryable) {}

  /** Queues one row; a full chunk is sent to the database while reading goes on. */
  async add(kind: StagedKind, row: unknown[]): Promise<void> {
    const rows = this.pending[kind];
    rows.push(row);
    if (rows.length >= CHUNK_ROWS) await this.send(kind);
  }

  /** Sends what is left, applies the deltas, and moves the events into their tables. */
  async finish(): Promise<void> {
    for (const kind of Object.keys(STAGED) as StagedKind[]) await this.send(kind);
    await this.inFlight;
    if (!this.created) return;
    await applyViewsStarted(this.tx, tableRows(STAGED.views.table, STAGED.views.columns));
    await applyVisits(this.tx, tableRows(STAGED.visits.table, STAGED.visits.columns));
    await applyDownloads(this.tx, tableRows(STAGED.downloads.table, STAGED.downloads.columns));
    // A view imported whole is complete: it ended its duration after its start.
    await this.tx.query(
      `INSERT INTO views (${names('views')}, completed_at)
       SELECT ${names('views')}, started_at + make_interval(secs => duration_seconds) FROM import_views`,
    );
    await this.tx.query(
      `INSERT INTO visits (${names('visits')}) SELECT ${names('visits')} FROM import_visits`,
    );
    await this.tx.query(
      `INSERT INTO downloads (${names('downloads')}) SELECT ${names('downloads')} FROM import_downloads`,
    );
  }

  private async send(kind: StagedKind): Promise<void> {
    const rows = this.pending[kind];
    if (rows.length === 0) return;
    this.pending[kind] = [];
    await this.inFlight;
    await this.createTables();
    const text = copyText(rows);
    const copy = this.tx.copyFrom(STAGED[kind].table, columnNames(kind), text);
    // Not awaited here: reading and checking the next chunk overlaps with this COPY. A
    // failure surfaces at the next send or at finish, and fails the import.
    copy.catch(() => undefined);
    this.inFlight = copy;
  }

  private async createTables(): Promise<void> {
    if (this.created) return;
    this.created = true;
    for (const { table, columns } of Object.values(STAGED)) {
      const definition = columns.map(([name, type]) => `${name} ${type}`).join(', ');
      await this.tx.query(`CREATE TEMPORARY TABLE ${table} (${definition}) ON COMMIT DROP`);
    }
  }
}

function columnNames(kind: StagedKind): string[] {
  return STAGED[kind].columns.map(([name]) => name);
}

function names(kind: StagedKind): string {
  return columnNames(kind).join(', ');
}

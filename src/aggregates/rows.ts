/**
 * The rows a delta reads: either a table the caller has filled (an import's staging table)
 * or literal rows passed as one array parameter per column. Either way the delta's SQL is
 * the same text with `(${rows.sql}) s` in its FROM clauses, so a single live event and a
 * million imported ones go through the same statements.
 */
export interface Rows {
  sql: string;
  params: unknown[];
}

/** A view as the deltas see it; duration 0 until completed. */
export interface ViewFact {
  id: string;
  dealRoomId: string;
  documentId: string;
  linkId: string;
  viewerId: string;
  viewerName: string;
  startedAt: Date;
  durationSeconds: number;
}

/** A visit (a click on a link) or a download. */
export interface EventFact {
  id: string;
  dealRoomId: string;
  linkId: string;
  viewerId: string;
  at: Date;
}

export interface DownloadFact extends EventFact {
  documentId: string;
}

/**
 * The event tables' columns, in the order staging tables and literal rows use: name, type,
 * and the field of the fact that fills it.
 */
export const VIEW_COLUMNS = [
  ['id', 'uuid', 'id'],
  ['deal_room_id', 'uuid', 'dealRoomId'],
  ['document_id', 'uuid', 'documentId'],
  ['link_id', 'uuid', 'linkId'],
  ['viewer_id', 'uuid', 'viewerId'],
  ['viewer_name', 'text', 'viewerName'],
  ['started_at', 'timestamptz', 'startedAt'],
  ['duration_seconds', 'int4', 'durationSeconds'],
] as const satisfies Columns<ViewFact>;

export const VISIT_COLUMNS = [
  ['id', 'uuid', 'id'],
  ['deal_room_id', 'uuid', 'dealRoomId'],
  ['link_id', 'uuid', 'linkId'],
  ['viewer_id', 'uuid', 'viewerId'],
  ['at', 'timestamptz', 'at'],
] as const satisfies Columns<EventFact>;

export const DOWNLOAD_COLUMNS = [
  ['id', 'uuid', 'id'],
  ['deal_room_id', 'uuid', 'dealRoomId'],
  ['document_id', 'uuid', 'documentId'],
  ['link_id', 'uuid', 'linkId'],
  ['viewer_id', 'uuid', 'viewerId'],
  ['at', 'timestamptz', 'at'],
] as const satisfies Columns<DownloadFact>;

type Columns<Fact = unknown> = readonly (readonly [name: string, type: string, field: keyof Fact])[];

/** Rows read from a table (staging), all of its listed columns. */
export function tableRows(table: string, columns: readonly (readonly [name: string, ...unknown[]])[]): Rows {
  return { sql: `SELECT ${columns.map(([name]) => name).join(', ')} FROM ${table}`, params: [] };
}

/** Facts as literal rows: one array parameter per column, zipped by unnest. */
function literalRows<Fact>(columns: Columns<Fact>, facts: readonly Fact[]): Rows {
  const args = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const names = columns.map(([name]) => name).join(', ');
  return {
    sql: `SELECT * FROM unnest(${args}) AS t(${names})`,
    params: columns.map(([, , field]) => facts.map((fact) => fact[field])),
  };
}

export const viewRows = (views: readonly ViewFact[]): Rows => literalRows(VIEW_COLUMNS, views);
export const visitRows = (visits: readonly EventFact[]): Rows => literalRows(VISIT_COLUMNS, visits);
export const downloadRows = (downloads: readonly DownloadFact[]): Rows =>
  literalRows(DOWNLOAD_COLUMNS, downloads);

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

/** Column lists of the event tables, in the order staging tables and literal rows use. */
export const VIEW_COLUMNS = [
  ['id', 'uuid'],
  ['deal_room_id', 'uuid'],
  ['document_id', 'uuid'],
  ['link_id', 'uuid'],
  ['viewer_id', 'uuid'],
  ['viewer_name', 'text'],
  ['started_at', 'timestamptz'],
  ['duration_seconds', 'int4'],
] as const;

export const VISIT_COLUMNS = [
  ['id', 'uuid'],
  ['deal_room_id', 'uuid'],
  ['link_id', 'uuid'],
  ['viewer_id', 'uuid'],
  ['at', 'timestamptz'],
] as const;

export const DOWNLOAD_COLUMNS = [
  ['id', 'uuid'],
  ['deal_room_id', 'uuid'],
  ['document_id', 'uuid'],
  ['link_id', 'uuid'],
  ['viewer_id', 'uuid'],
  ['at', 'timestamptz'],
] as const;

type Columns = readonly (readonly [name: string, type: string])[];

/** Rows read from a table (staging), all of its listed columns. */
export function tableRows(table: string, columns: Columns): Rows {
  return { sql: `SELECT ${columns.map(([name]) => name).join(', ')} FROM ${table}`, params: [] };
}

function literalRows(columns: Columns, values: unknown[][]): Rows {
  const args = columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ');
  const names = columns.map(([name]) => name).join(', ');
  return { sql: `SELECT * FROM unnest(${args}) AS t(${names})`, params: values };
}

export function viewRows(views: readonly ViewFact[]): Rows {
  return literalRows(VIEW_COLUMNS, [
    views.map((v) => v.id),
    views.map((v) => v.dealRoomId),
    views.map((v) => v.documentId),
    views.map((v) => v.linkId),
    views.map((v) => v.viewerId),
    views.map((v) => v.viewerName),
    views.map((v) => v.startedAt),
    views.map((v) => v.durationSeconds),
  ]);
}

export function visitRows(visits: readonly EventFact[]): Rows {
  return literalRows(VISIT_COLUMNS, [
    visits.map((v) => v.id),
    visits.map((v) => v.dealRoomId),
    visits.map((v) => v.linkId),
    visits.map((v) => v.viewerId),
    visits.map((v) => v.at),
  ]);
}

export function downloadRows(downloads: readonly DownloadFact[]): Rows {
  return literalRows(DOWNLOAD_COLUMNS, [
    downloads.map((d) => d.id),
    downloads.map((d) => d.dealRoomId),
    downloads.map((d) => d.documentId),
    downloads.map((d) => d.linkId),
    downloads.map((d) => d.viewerId),
    downloads.map((d) => d.at),
  ]);
}

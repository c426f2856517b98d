import { applyDownloads, applyVisits } from '../aggregates/deltas.ts';
import { applyPageReadingRemoved, applyViewsRemoved } from '../aggregates/removals.ts';
import { DOWNLOAD_COLUMNS, tableRows, VIEW_COLUMNS, VISIT_COLUMNS } from '../aggregates/rows.ts';
import type { Queryable } from '../db/database.ts';

/**
 * Events go with the document, link or room they belong to. Event rows have no foreign
 * keys (an import writes millions of them), so nothing cascades: they are deleted here,
 * into temporary tables the delta module then takes off every figure.
 */

/** A room's events: its figures go with the room itself, so no delta is needed. */
export async function removeRoomEvents(tx: Queryable, roomId: string): Promise<void> {
  await tx.query('DELETE FROM views WHERE viewer_id IN (SELECT id FROM viewers WHERE deal_room_id = $1)', [
    roomId,
  ]);
  for (const table of ['visits', 'downloads', 'download_refusals']) {
    await tx.query(`DELETE FROM ${table} WHERE deal_room_id = $1`, [roomId]);
  }
}

/** A document's views and downloads (visits are a link's, not a document's). */
export async function removeDocumentEvents(tx: Queryable, roomId: string, documentId: string): Promise<void> {
  await removeViews(tx, roomId, 'document_id = $2', [documentId]);
  await removeDownloads(tx, roomId, 'document_id = $2', [documentId]);
  await tx.query('DELETE FROM download_refusals WHERE deal_room_id = $1 AND document_id = $2', [
    roomId,
    documentId,
  ]);
}

/** A link's visits, views and downloads. */
export async function removeLinkEvents(tx: Queryable, roomId: string, linkId: string): Promise<void> {
  await removeViews(tx, roomId, 'link_id = $2', [linkId]);
  await removeDownloads(tx, roomId, 'link_id = $2', [linkId]);
  await tx.query('DELETE FROM visits WHERE deal_room_id = $1 AND link_id = $2 AND internal', [
    roomId,
    linkId,
  ]);
  await moveDeleted(tx, 'visits', VISIT_COLUMNS, 'deal_room_id = $1 AND link_id = $2', [roomId, linkId]);
  await applyVisits(tx, tableRows('removed_visits', VISIT_COLUMNS), -1);
  await tx.query('DELETE FROM download_refusals WHERE deal_room_id = $1 AND link_id = $2', [roomId, linkId]);
}

async function removeViews(tx: Queryable, roomId: string, where: string, params: unknown[]): Promise<void> {
  // Through the viewers of the room: views are indexed by viewer.
  const views = `viewer_id IN (SELECT id FROM viewers WHERE deal_room_id = $1) AND ${where}`;
  // The team's own views were counted nowhere: they go without a delta.
  await tx.query(`DELETE FROM views WHERE ${views} AND internal`, [roomId, ...params]);
  await applyPageReadingRemoved(tx, views, [roomId, ...params]);
  await moveDeleted(tx, 'views', VIEW_COLUMNS, views, [roomId, ...params]);
  await applyViewsRemoved(tx, tableRows('removed_views', VIEW_COLUMNS));
}

async function removeDownloads(
  tx: Queryable,
  roomId: string,
  where: string,
  params: unknown[],
): Promise<void> {
  await tx.query(`DELETE FROM downloads WHERE deal_room_id = $1 AND ${where} AND internal`, [
    roomId,
    ...params,
  ]);
  await moveDeleted(tx, 'downloads', DOWNLOAD_COLUMNS, `deal_room_id = $1 AND ${where}`, [roomId, ...params]);
  await applyDownloads(tx, tableRows('removed_downloads', DOWNLOAD_COLUMNS), -1);
}

/** Deletes the matching rows of `table` into a temporary `removed_<table>`, dropped at commit. */
async function moveDeleted(
  tx: Queryable,
  table: string,
  columns: readonly (readonly [name: string, type: string, ...unknown[]])[],
  where: string,
  params: unknown[],
): Promise<void> {
  const names = columns.map(([name]) => name).join(', ');
  await tx.query(
    `CREATE TEMPORARY TABLE removed_${table} (${columns.map(([name, type]) => `${name} ${type}`).join(', ')}) ON COMMIT DROP`,
  );
  await tx.query(
    `WITH gone AS (DELETE FROM ${table} WHERE ${where} RETURNING ${names})
     INSERT INTO removed_${table} (${names}) SELECT ${names} FROM gone`,
    params,
  );
}

/** A room's links: the tracking guards its deletion takes (write/guards.ts). */
export async function linkIdsOfRoom(tx: Queryable, roomId: string): Promise<string[]> {
  const rows = await tx.query<{ id: string }>('SELECT id FROM links WHERE deal_room_id = $1', [roomId]);
  return rows.map((row) => row.id);
}

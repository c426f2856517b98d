import type { Queryable } from '../db/database.ts';

/**
 * The delta module's figures of what rooms hold: each room's published documents and links
 * (and when its contents changed), and each team's rooms by status. A change to a room's
 * contents also moves its figures version (a document's or link's name is in its analytics).
 */

/**
 * Changes to what a room holds: published documents and links, each a signed count, and
 * when its contents changed (a live write's time moves the room's updatedAt; an import
 * gives the room's own).
 */
export interface RoomContentsDelta {
  dealRoomId: string;
  publishedDocuments: number;
  links: number;
  changedAt?: Date;
}

export async function applyRoomContents(tx: Queryable, deltas: readonly RoomContentsDelta[]): Promise<void> {
  const changed = deltas.filter((d) => d.publishedDocuments !== 0 || d.links !== 0 || d.changedAt);
  if (changed.length === 0) return;
  await tx.query(
    `UPDATE deal_rooms r
        SET document_count = r.document_count + d.documents, link_count = r.link_count + d.links,
            updated_at = greatest(r.updated_at, coalesce(d.changed_at, r.updated_at)),
            figures_version = r.figures_version + 1
       FROM unnest($1::uuid[], $2::int[], $3::int[], $4::timestamptz[]) AS d(id, documents, links, changed_at)
      WHERE r.id = d.id`,
    [
      changed.map((d) => d.dealRoomId),
      changed.map((d) => d.publishedDocuments),
      changed.map((d) => d.links),
      changed.map((d) => d.changedAt ?? null),
    ],
  );
}

/**
 * One live write's change to a room's contents at `tx.now`: its updatedAt moves, and its
 * published documents and links change by the given counts (none by default).
 */
export async function applyRoomChange(
  tx: Queryable & { now: Date },
  dealRoomId: string,
  counts: { publishedDocuments?: number; links?: number } = {},
): Promise<void> {
  await applyRoomContents(tx, [
    {
      dealRoomId,
      publishedDocuments: counts.publishedDocuments ?? 0,
      links: counts.links ?? 0,
      changedAt: tx.now,
    },
  ]);
}

/** Changes to a team's rooms by status, each a signed count (the room list's total). */
export interface TeamRoomsDelta {
  teamId: string;
  active: number;
  archived: number;
}

export async function applyTeamRooms(tx: Queryable, deltas: readonly TeamRoomsDelta[]): Promise<void> {
  const changed = deltas.filter((d) => d.active !== 0 || d.archived !== 0);
  if (changed.length === 0) return;
  await tx.query(
    `UPDATE teams t
        SET active_rooms = t.active_rooms + d.active, archived_rooms = t.archived_rooms + d.archived
       FROM unnest($1::uuid[], $2::int[], $3::int[]) AS d(id, active, archived)
      WHERE t.id = d.id`,
    [changed.map((d) => d.teamId), changed.map((d) => d.active), changed.map((d) => d.archived)],
  );
}

import type { Queryable } from '../db/database.ts';

/** The channel that tells live pages a room has new activity; its payload is `teamId:roomId`. */
export const ACTIVITY_CHANNEL = 'dealroom_activity';

/**
 * Tells every process's live pages (the room overview's feed, the team's Activity page) that
 * these rooms have new activity: a NOTIFY sent in the writing transaction, so it is delivered
 * at its commit and never for a write that rolled back.
 */
export async function announceActivity(tx: Queryable, roomIds: readonly string[]): Promise<void> {
  const rooms = [...new Set(roomIds.map((id) => id.toLowerCase()))];
  if (rooms.length === 0) return;
  await tx.query(
    `SELECT pg_notify('${ACTIVITY_CHANNEL}', r.team_id || ':' || r.id) FROM deal_rooms r WHERE r.id = ANY ($1::uuid[])`,
    [rooms],
  );
}

import { applyTeamRooms } from '../aggregates/contents.ts';
import { apiErrors, fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import { forgetRoomEvents, recordEvent } from '../events/outbox.ts';
import { followAsCreator } from '../notifications/commands.ts';
import { teamExists } from '../teams/repo.ts';
import { linkIdsOfRoom, removeRoomEvents } from '../write/cascade.ts';
import { exclusiveGuards } from '../write/guards.ts';
import { inWrite, type WriteContext, type WriteTx } from '../write/transaction.ts';
import {
  deleteDealRoomRow,
  insertDealRoom,
  loadRoom,
  type RoomRecord,
  setDealRoomStatusRow,
  updateDealRoomRow,
} from './repo.ts';
import type { DealRoomDetail } from './schemas.ts';
import { toDealRoomDetail } from './service.ts';

/** A room as the management API answers it: the single-room response and its team. */
export type ManagedDealRoom = DealRoomDetail & { teamId: string };

export interface DealRoomChanges {
  name?: string | undefined;
  description?: string | undefined;
}

const notFound = () => fail('dealRoomNotFound');

export async function createDealRoom(
  ctx: WriteContext,
  teamId: string,
  input: { name: string; description?: string | undefined },
): Promise<ManagedDealRoom> {
  if (!isUuid(teamId)) throw apiErrors.teamNotFound();
  return inWrite(ctx, async (tx) => {
    if (!(await teamExists(tx, teamId))) throw apiErrors.teamNotFound();
    const id = newId(tx.now.getTime());
    await insertDealRoom(tx, { id, teamId, name: input.name, description: input.description ?? '' }, tx.now);
    await applyTeamRooms(tx, [{ teamId, active: 1, archived: 0 }]);
    await followAsCreator(tx, ctx.actor, id);
    return changed(tx, id, 'deal_room.created');
  });
}

export async function updateDealRoom(
  ctx: WriteContext,
  id: string,
  changes: DealRoomChanges,
): Promise<ManagedDealRoom> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const room = await loadRoom(tx, id, 'update');
    if (!room) throw notFound();
    const name = changes.name ?? room.name;
    const description = changes.description ?? room.description;
    if (name === room.name && description === room.description) return managed(room);
    await updateDealRoomRow(tx, id, { name, description }, tx.now);
    return changed(tx, id, 'deal_room.updated');
  });
}

/** Archives or restores a room; a room already in that status is answered as it is, with no event. */
export async function setDealRoomStatus(
  ctx: WriteContext,
  id: string,
  status: 'active' | 'archived',
): Promise<ManagedDealRoom> {
  if (!isUuid(id)) throw notFound();
  return inWrite(ctx, async (tx) => {
    const room = await loadRoom(tx, id, 'update');
    if (!room) throw notFound();
    if (room.status === status) return managed(room);
    await setDealRoomStatusRow(tx, id, status, tx.now);
    const sign = status === 'active' ? 1 : -1;
    await applyTeamRooms(tx, [{ teamId: room.team_id, active: sign, archived: -sign }]);
    return changed(tx, id, status === 'archived' ? 'deal_room.archived' : 'deal_room.restored');
  });
}

/** Deletes a room with everything in it; its event shows it as it was just before. */
export async function deleteDealRoom(ctx: WriteContext, id: string): Promise<void> {
  if (!isUuid(id)) throw notFound();
  await inWrite(ctx, async (tx) => {
    // FOR UPDATE holds off new links; the guards of the room's links wait for the tracking
    // writes in flight and hold off new ones until the room is gone (write/guards.ts).
    const room = await loadRoom(tx, id, 'update');
    if (!room) throw notFound();
    await exclusiveGuards(tx, await linkIdsOfRoom(tx, id));
    await removeRoomEvents(tx, id);
    await forgetRoomEvents(tx, id);
    await deleteDealRoomRow(tx, id);
    await applyTeamRooms(tx, [
      {
        teamId: room.team_id,
        active: room.status === 'active' ? -1 : 0,
        archived: room.status === 'archived' ? -1 : 0,
      },
    ]);
    await recordEvent(
      tx,
      { teamId: room.team_id, dealRoomId: room.id },
      'deal_room.deleted',
      toDealRoomDetail(room),
    );
  });
}

function managed(room: RoomRecord): ManagedDealRoom {
  return { ...toDealRoomDetail(room), teamId: room.team_id };
}

async function changed(
  tx: WriteTx,
  id: string,
  type: 'deal_room.created' | 'deal_room.updated' | 'deal_room.archived' | 'deal_room.restored',
): Promise<ManagedDealRoom> {
  const room = await loadRoom(tx, id);
  if (!room) throw notFound();
  await recordEvent(tx, { teamId: room.team_id, dealRoomId: room.id }, type, toDealRoomDetail(room));
  return managed(room);
}

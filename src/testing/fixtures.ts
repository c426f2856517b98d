import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { type Dataset, datasetRecords } from '../import/dataset.ts';
import { importRecords } from '../import/service.ts';
import { createApiKey } from '../keys/commands.ts';

type Raw = Record<string, unknown>;

/** Loads a dataset through the real import path. */
export async function load(db: Database, clock: Clock, data: Dataset): Promise<void> {
  await importRecords(db, clock, datasetRecords(data));
}

/** Builders with sensible defaults, so a test states only what it is about. */
export const make = {
  team: (over: Raw = {}) => ({ id: randomUUID() as string, name: 'Acme Capital', ...over }),
  room: (teamId: string, over: Raw = {}) => ({
    id: randomUUID() as string,
    teamId,
    name: 'Project Falcon',
    description: 'Series B data room',
    status: 'active',
    createdAt: '2026-01-10T09:00:00.000Z',
    updatedAt: '2026-01-10T09:00:00.000Z',
    ...over,
  }),
  document: (dealRoomId: string, over: Raw = {}) => ({
    id: randomUUID() as string,
    dealRoomId,
    name: 'Financials.pdf',
    displayName: null,
    sourceType: 'upload',
    pageCount: 12,
    status: 'published',
    position: 1,
    createdAt: '2026-01-10T09:00:00.000Z',
    updatedAt: '2026-01-10T09:00:00.000Z',
    ...over,
  }),
  link: (dealRoomId: string, over: Raw = {}) => ({
    id: randomUUID() as string,
    dealRoomId,
    name: 'Investors',
    shortId: (randomUUID() as string).slice(0, 12),
    enabled: true,
    requiresEmail: true,
    expiresAt: null,
    createdAt: '2026-01-11T09:00:00.000Z',
    ...over,
  }),
  view: (linkId: string, documentId: string, viewer: Raw, startedAt: string, durationSeconds = 60) => ({
    linkId,
    documentId,
    viewer,
    startedAt,
    durationSeconds,
  }),
  visit: (linkId: string, viewer: Raw, at: string) => ({ linkId, viewer, at }),
  download: (linkId: string, documentId: string, viewer: Raw, at: string) => ({
    linkId,
    documentId,
    viewer,
    at,
  }),
};

/** A team with a fresh API key; returns the plain key. */
export async function teamWithKey(db: Database, clock: Clock, team: Raw = make.team()) {
  await load(db, clock, { teams: [team] });
  const { key, apiKey } = await createApiKey(
    { db: db, clock: clock, appUrl: '' },
    { teamId: team.id as string },
  );
  return { teamId: team.id as string, key, keyId: apiKey.id };
}

/** A team with a key and one room (not yet loaded: pass it to `load` with its contents). */
export async function roomWithKey(db: Database, clock: Clock) {
  const team = await teamWithKey(db, clock);
  const room = make.room(team.teamId);
  return { ...team, room, roomId: room.id as string };
}

/**
 * A team with a key, and a room holding one document ("Deck"), one link ("Main") and one
 * 30-second view of the document through the link on 2026-05-19, loaded.
 */
export async function viewedRoom(
  db: Database,
  clock: Clock,
  over: { document?: Raw; link?: Raw; viewer?: Raw } = {},
) {
  const { teamId, key } = await teamWithKey(db, clock);
  const room = make.room(teamId);
  const doc = make.document(room.id, { name: 'Deck', ...over.document });
  const link = make.link(room.id, { name: 'Main', ...over.link });
  const viewer = over.viewer ?? { visitorId: 'v-1' };
  await load(db, clock, {
    dealRooms: [room],
    documents: [doc],
    links: [link],
    views: [make.view(link.id, doc.id, viewer, '2026-05-19T10:00:00.000Z', 30)],
  });
  return { teamId, key, roomId: room.id, docId: doc.id, linkId: link.id };
}

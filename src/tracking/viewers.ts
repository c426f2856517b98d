import { emailKey } from '../core/email-entries.ts';
import { ApiError } from '../core/errors.ts';
import { identityKey, type ViewerIdentity, viewerIdentityOf } from '../viewers/identity.ts';
import type { WriteTx } from '../write/transaction.ts';
import { insertAndLockViewers } from './repo.ts';

/** A viewer as the tracking front end sends it: an email (and name), or an anonymous visitor id. */
export interface ViewerInput {
  email?: string | undefined;
  name?: string | undefined;
  visitorId?: string | undefined;
}

/** The viewer's identity in a room (viewers/identity.ts), or the 400 that says what is wrong. */
export function viewerIdentity(input: ViewerInput, field = 'viewer'): ViewerIdentity {
  const identity = viewerIdentityOf(input);
  if (identity === 'email') throw new ApiError('validation_error', `${field}.email must be an email address`);
  if (identity === 'missing') {
    throw new ApiError('validation_error', `${field} needs a non-empty "email" or a "visitorId"`);
  }
  return identity;
}

export interface LockedViewer {
  id: string;
  totalViews: number;
  lastViewedAt: Date | null;
  /** One of the team's own people: what they do is recorded, marked internal, and counted nowhere. */
  internal: boolean;
}

/** A viewer wanted in a room, with the id it gets if it is new. */
export interface WantedViewer {
  roomId: string;
  viewer: ViewerIdentity;
  newId: string;
}

/**
 * The room's viewer of that identity, created on first sight, and locked: concurrent first
 * views of one new viewer make one viewer, and the second sees the first's view.
 */
export async function lockViewer(
  tx: WriteTx,
  roomId: string,
  viewer: ViewerIdentity,
  newId: string,
): Promise<LockedViewer> {
  const [locked] = await lockViewers(tx, [{ roomId, viewer, newId }]);
  if (!locked) throw new Error('viewer vanished after its insert');
  return locked;
}

/**
 * lockViewer for several viewers at once (no identity twice in one room), in the given
 * order. Inserted in (room, identity) order and locked in id order, the same for every
 * writer, so concurrent batches cannot deadlock on them.
 */
export async function lockViewers(tx: WriteTx, wanted: readonly WantedViewer[]): Promise<LockedViewer[]> {
  if (wanted.length === 0) return [];
  const identities = wanted.map((w) => identityKey(w.viewer));
  const rows = await insertAndLockViewers(
    tx,
    wanted.map((w, i) => ({
      newId: w.newId,
      roomId: w.roomId,
      identity: identities[i] as string,
      email: w.viewer.kind === 'email' ? w.viewer.email : '',
      emailKey: w.viewer.kind === 'email' ? (emailKey(w.viewer.email) ?? w.viewer.email) : '',
    })),
    tx.now,
  );
  const found = new Map(rows.map((r) => [`${r.deal_room_id}/${r.identity}`, r]));
  return wanted.map((w, i) => {
    const row = found.get(`${w.roomId.toLowerCase()}/${identities[i]}`);
    if (!row) throw new Error('viewer vanished after its insert');
    return {
      id: row.id,
      totalViews: row.total_views,
      lastViewedAt: row.last_viewed_at,
      internal: row.internal,
    };
  });
}

import { ApiError } from '../http/errors.ts';
import { identityKey, type ViewerIdentity } from '../import/records.ts';
import type { WriteTx } from '../write/transaction.ts';

/** A viewer as the tracking front end sends it: an email (and name), or an anonymous visitor id. */
export interface ViewerInput {
  email?: string | undefined;
  name?: string | undefined;
  visitorId?: string | undefined;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The viewer's identity in a room, by the rules of contract.md section 2 (the import's too). */
export function viewerIdentity(input: ViewerInput, field = 'viewer'): ViewerIdentity {
  const name = input.name?.trim() ?? '';
  const email = input.email?.trim().toLowerCase() ?? '';
  if (email !== '') {
    if (email.length > 320 || !EMAIL.test(email)) {
      throw new ApiError('validation_error', `${field}.email must be an email address`);
    }
    return { kind: 'email', email, name };
  }
  const visitorId = input.visitorId?.trim() ?? '';
  if (visitorId === '') {
    throw new ApiError('validation_error', `${field} needs a non-empty "email" or a "visitorId"`);
  }
  return { kind: 'visitor', visitorId, name };
}

export interface LockedViewer {
  id: string;
  totalViews: number;
  lastViewedAt: Date | null;
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
  const identity = identityKey(viewer);
  await tx.query(
    `INSERT INTO viewers (id, deal_room_id, identity, email, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (deal_room_id, identity) DO NOTHING`,
    [newId, roomId, identity, viewer.kind === 'email' ? viewer.email : '', tx.now],
  );
  const [row] = await tx.query<{ id: string; total_views: number; last_viewed_at: Date | null }>(
    'SELECT id, total_views, last_viewed_at FROM viewers WHERE deal_room_id = $1 AND identity = $2 FOR UPDATE',
    [roomId, identity],
  );
  if (!row) throw new Error('viewer vanished after its insert');
  return { id: row.id, totalViews: row.total_views, lastViewedAt: row.last_viewed_at };
}

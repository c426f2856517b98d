import { ApiError, fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { shareGuards } from '../write/guards.ts';
import type { WriteTx } from '../write/transaction.ts';
import { readTargets } from './repo.ts';

/** Events dated further ahead than this are refused (contract.md section 2). */
const MAX_FUTURE_MS = 5 * 60 * 1000;
const EARLIEST = Date.UTC(2000, 0, 1);

export const linkNotFound = () => fail('linkNotFound');
const documentNotFound = () => fail('documentNotOnLink');

/** When a tracked event happened: as given, or now; never more than 5 minutes ahead. */
export function eventTime(tx: WriteTx, given: Date | undefined, field: string): Date {
  const at = given ?? tx.now;
  if (at.getTime() > tx.now.getTime() + MAX_FUTURE_MS) {
    throw new ApiError('validation_error', `${field} must not be more than 5 minutes in the future`);
  }
  if (at.getTime() < EARLIEST) throw new ApiError('validation_error', `${field} must not be before 2000`);
  return at;
}

/** What a tracked event goes through: a link, and for views and downloads a document. */
export interface TargetRequest {
  linkId: string;
  documentId?: string | undefined;
  hasEmail: boolean;
}

export interface LinkTarget {
  roomId: string;
  teamId: string;
  downloadAllowed: boolean;
}

/** openLinks for one event; its refusal is thrown. */
export async function openLink(tx: WriteTx, request: TargetRequest): Promise<LinkTarget> {
  const [target] = await openLinks(tx, [request]);
  if (!target || target instanceof ApiError) throw target ?? linkNotFound();
  return target;
}

/**
 * The links events come through, each checked open (enabled, not expired, an email when it
 * requires one), and the document each shows: a target, or the error that event is refused
 * with, in the given order. One statement for any number. Links and documents are guarded
 * first (write/guards.ts): a concurrent delete waits for these writes, and these writes see
 * no deleted link or document.
 */
export async function openLinks(
  tx: WriteTx,
  requests: readonly TargetRequest[],
): Promise<(LinkTarget | ApiError)[]> {
  const documentIds = requests.map((r) =>
    r.documentId !== undefined && isUuid(r.documentId) ? r.documentId.toLowerCase() : null,
  );
  const linkIds = requests.map((r) => r.linkId.toLowerCase());
  await shareGuards(tx, [...linkIds, ...documentIds.filter((id): id is string => id !== null)]);
  const rows = await readTargets(tx, linkIds, documentIds);
  const byIndex = new Map(rows.map((row) => [row.i - 1, row]));
  return requests.map((request, i) => {
    const link = byIndex.get(i);
    // Within the write's team only: another team's link is not found.
    if (!link || (tx.teamId !== undefined && link.team_id !== tx.teamId)) return linkNotFound();
    if (!link.enabled) return new ApiError('conflict', 'This link is disabled');
    if (link.expires_at !== null && link.expires_at.getTime() <= tx.now.getTime()) {
      return new ApiError('conflict', 'This link has expired');
    }
    if (link.requires_email && !request.hasEmail) {
      return new ApiError('validation_error', 'viewer.email is required: this link requires an email');
    }
    const target = { roomId: link.deal_room_id, teamId: link.team_id, downloadAllowed: link.allow_download };
    if (request.documentId === undefined) return target;
    if (!link.shown) return documentNotFound();
    return { ...target, downloadAllowed: link.download_override ?? link.allow_download };
  });
}

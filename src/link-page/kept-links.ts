import { LRUCache } from 'lru-cache';
import type { Database } from '../db/database.ts';
import { linkByShortId, type ShownLink, type ShownSelection } from './repo.ts';

/** The channel migration 018's triggers notify when anything a link page shows changes. */
export const LINK_PAGE_CHANNEL = 'dealroom_link_page';

/** Links kept per process at most (a link and one document is about a kilobyte). */
const KEPT_LINKS = 10_000;

export type FindLink = (shortId: string, shown?: ShownSelection) => Promise<ShownLink | undefined>;

export interface KeptLinks {
  find: FindLink;
  /** Stops listening (the app is closing). */
  close(): Promise<void>;
}

/**
 * The link pages' one read per request, the link and the documents it shows
 * (repo.ts linkByShortId), kept per process where that is exact: on a store whose
 * notifications reach this process before the commit that sent them returns (the embedded
 * store, Database.notifiesBeforeCommitReturns). Every write to what a link page shows sends
 * one (migration 018), and everything kept is dropped when it arrives; a read that was under
 * way when it arrived is not kept. A page image then costs no statement at all, which the
 * embedded store's one session would otherwise run for every image of every viewer. Expiry
 * needs no notification: the caller compares `expires_at` with the time at every request.
 * Elsewhere (PostgreSQL, other processes' commits) every call reads the store.
 */
export function keptLinks(db: Database): KeptLinks {
  const read: FindLink = (shortId, shown) => linkByShortId(db, shortId, shown);
  if (!db.notifiesBeforeCommitReturns) return { find: read, close: async () => {} };
  const kept = new LRUCache<string, ShownLink | false>({ max: KEPT_LINKS });
  /** Bumped by every notification: a read begun before one may have missed its change. */
  let changes = 0;
  const listening = db
    .listen(LINK_PAGE_CHANNEL, () => {
      changes++;
      kept.clear();
    })
    .catch(() => undefined);
  const find: FindLink = async (shortId, shown = 'none') => {
    if (!(await listening)) return read(shortId, shown);
    const key = typeof shown === 'object' ? `${shortId}\n${shown.id}` : `${shortId}\n${shown}`;
    const known = kept.get(key);
    if (known !== undefined) return known || undefined;
    const before = changes;
    const found = await read(shortId, shown);
    const link = found && frozen(found);
    if (changes === before) kept.set(key, link ?? false);
    return link;
  };
  return {
    find,
    async close() {
      kept.clear();
      await (await listening)?.();
    },
  };
}

/** A kept link is shared by every request that finds it: none may change it. */
function frozen(link: ShownLink): ShownLink {
  for (const document of link.documents) Object.freeze(document);
  Object.freeze(link.documents);
  return Object.freeze(link);
}

import type { Logger } from 'pino';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { type FileWork, PAGE_WIDTHS } from '../rendering/pool.ts';
import type { PageImage } from '../rendering/protocol.ts';
import { withLocalCopy } from './files.ts';

/** Pages drawn per task: small enough that a page that cannot be drawn costs little of its neighbours' time. */
const PAGES_PER_TASK = 4;
/** How long a claim on a version lasts without progress; another process takes it over after. */
const CLAIM_MS = 5 * 60_000;
/** How often pending versions are looked for without being woken (another process's uploads). */
const POLL_MS = 15_000;
/** How long a viewer's wish for a version's pages is kept, and how many are kept at most. */
const WANTED_MS = 60_000;
const WANTED_MAX = 1000;
/**
 * How often a wish already known sends the renderer looking for work: a viewer asks for each
 * of its pages and thumbnails every 2 s, and the look is a query.
 */
const RELOOK_MS = 2_000;

export interface Renderer {
  /** Looks for versions to render now (an upload committed). */
  wake(): void;
  /**
   * A viewer is waiting for this version's pages: it is drawn before older uploads, and a
   * version being drawn is let go after its current pages (another process may take it on).
   */
  want(versionId: string): void;
  stop(): Promise<void>;
}

/**
 * The versions viewers wait for (Renderer.want), each with when a viewer first asked (the
 * viewer asks again every few seconds), and how the renderer is told one is drawn.
 */
export interface Wishes {
  list(): readonly { id: string; at: number }[];
  drawn(id: string): void;
}

interface Claimed {
  id: string;
  content_type: string;
  chunks: number;
  page_count: number;
  pages_ready: number;
}

/**
 * Renders each document's newest version until its pages are all drawn, oldest upload first,
 * page 1 first, into `page_images`, in the file threads (pool.ts). A version is claimed for a while, so
 * processes sharing a store render each version once; a process that dies mid-version leaves
 * its claim to lapse, and the pages already stored stay. A page that cannot be drawn within
 * the limits is stored empty (the viewer says so) and rendering goes on with the next.
 */
export function startRenderer(deps: { db: Database; work: FileWork; clock: Clock; log: Logger }): Renderer {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  /**
   * Versions viewers wait for (oldest first): when each was first and last asked for, and when
   * it last sent the renderer looking.
   */
  const wanted = new Map<string, { first: number; last: number; looked: number }>();
  const wishes: Wishes = {
    list() {
      const expired = Date.now() - WANTED_MS;
      for (const [id, wish] of wanted) if (wish.last <= expired) wanted.delete(id);
      return [...wanted].map(([id, wish]) => ({ id, at: wish.first }));
    },
    drawn: (id) => wanted.delete(id),
  };
  const tick = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        try {
          while (!stopped && (await renderNext(deps, { wishes, stopped: () => stopped }))) {}
        } catch (err) {
          deps.log.error({ err }, 'page rendering failed; it is tried again');
        }
      } while (again && !stopped);
    })().finally(() => {
      running = undefined;
    });
  };
  const timer = setInterval(tick, POLL_MS);
  timer.unref();
  tick();
  return {
    wake: tick,
    want(versionId) {
      const now = Date.now();
      const wish = wanted.get(versionId);
      if (wish) {
        wish.last = now;
        // Looked for again as the viewer keeps asking (a claim another process held may have
        // lapsed), once per RELOOK_MS; while a pass is under way this only asks for one more.
        if (now - wish.looked < RELOOK_MS) return;
        wish.looked = now;
      } else {
        wanted.set(versionId, { first: now, last: now, looked: now });
        if (wanted.size > WANTED_MAX) wanted.delete(wanted.keys().next().value as string);
      }
      tick();
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}

/**
 * Renders the next pending version; false when there is none. Only a document's newest version
 * is taken: links show no other, so a version replaced before its turn is never drawn. A
 * version a viewer waits for (`options.wishes`) comes first; then versions without any page,
 * which get their page 1 alone (then the claim is let go), so every document on a link opens
 * at once even while a long one is drawn; then a version's other pages, all of them, unless a
 * viewer comes to wait for another version or the renderer stops: the claim is then let go
 * after the pages being drawn.
 */
export async function renderNext(
  deps: { db: Database; work: FileWork; clock: Clock },
  options: { wishes?: Wishes; stopped?: () => boolean } = {},
): Promise<boolean> {
  const { db, work, clock } = deps;
  const now = clock.now();
  const claimedAt = Date.now();
  const wanted = (options.wishes?.list() ?? []).map((wish) => wish.id);
  const [claimed] = await db.query<Claimed>(
    `UPDATE document_versions SET render_claimed_until = $1
      WHERE id = (SELECT v.id FROM document_versions v
                   WHERE v.pages_ready < v.page_count
                     AND (v.render_claimed_until IS NULL OR v.render_claimed_until < $2)
                     AND NOT EXISTS (SELECT 1 FROM document_versions n
                                      WHERE n.document_id = v.document_id AND n.version > v.version)
                   ORDER BY v.id = ANY($3::uuid[]) DESC, v.pages_ready > 0, v.uploaded_at, v.id
                   LIMIT 1 FOR UPDATE OF v SKIP LOCKED)
      RETURNING id, content_type, chunks, page_count, pages_ready`,
    [new Date(now.getTime() + CLAIM_MS), now, wanted],
  );
  if (!claimed) return false;
  const firstOnly = claimed.pages_ready === 0 && claimed.page_count > 1;
  const last = firstOnly ? 1 : claimed.page_count;
  // Let go when the renderer stops, or when a viewer has come to wait for another version
  // since the claim (a wish older than the claim was for a version it did not find pending:
  // drawn, or claimed by another process).
  const yieldNow = () =>
    options.stopped?.() === true ||
    (options.wishes?.list() ?? []).some((wish) => wish.id !== claimed.id && wish.at >= claimedAt);
  let letGo = firstOnly;
  await withLocalCopy(db, { versionId: claimed.id, chunks: claimed.chunks }, async (path) => {
    for (let first = claimed.pages_ready + 1; first <= last; first += PAGES_PER_TASK) {
      const pages = range(first, Math.min(last, first + PAGES_PER_TASK - 1));
      const images = await drawn(work, path, claimed.content_type, pages);
      // The version is gone (its document was deleted): nothing more to draw.
      if (!(await storePages(db, claimed.id, images, pages.at(-1) as number, clock))) return;
      if (pages.at(-1) !== last && yieldNow()) {
        letGo = true;
        return;
      }
    }
  });
  if (letGo) {
    await db.query('UPDATE document_versions SET render_claimed_until = NULL WHERE id = $1', [claimed.id]);
  } else {
    options.wishes?.drawn(claimed.id);
  }
  return true;
}

/** The pages' images; a page that cannot be drawn on its own is an empty image at each width. */
async function drawn(work: FileWork, path: string, type: string, pages: number[]): Promise<PageImage[]> {
  try {
    return await work.render(path, type, pages);
  } catch {
    if (pages.length === 1) {
      return PAGE_WIDTHS.map((width) => ({
        page: pages[0] as number,
        width,
        height: 0,
        bytes: new Uint8Array(),
      }));
    }
    const out: PageImage[] = [];
    for (const page of pages) out.push(...(await drawn(work, path, type, [page])));
    return out;
  }
}

async function storePages(
  db: Database,
  versionId: string,
  images: PageImage[],
  lastPage: number,
  clock: Clock,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [version] = await tx.query<{ id: string }>(
      `UPDATE document_versions SET pages_ready = greatest(pages_ready, $2), render_claimed_until = $3
        WHERE id = $1 RETURNING id`,
      [versionId, lastPage, new Date(clock.now().getTime() + CLAIM_MS)],
    );
    if (!version) return false;
    await tx.query(
      `INSERT INTO page_images (version_id, page, width, height, bytes)
       SELECT $1, * FROM unnest($2::int[], $3::int[], $4::int[], $5::bytea[])
       ON CONFLICT DO NOTHING`,
      [
        versionId,
        images.map((i) => i.page),
        images.map((i) => i.width),
        images.map((i) => i.height),
        images.map((i) => Buffer.from(i.bytes.buffer, i.bytes.byteOffset, i.bytes.byteLength)),
      ],
    );
    return true;
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

import type { Database } from '../db/database.ts';
import { ACTIVITY_CHANNEL } from '../events/activity.ts';

/** What a live page asked to hear about: one room, or every room of a team. */
export type LiveScope = { roomId: string } | { teamId: string };

/**
 * The web process's one LISTEN on the activity channel (events/activity.ts), fanned out to
 * the live pages open in it. Started by the first page that listens; a page's handler is
 * called at most every `gapMs` (a burst of reports is one refresh).
 */
export class LiveActivity {
  readonly #db: Database;
  readonly #gapMs: number;
  readonly #pages = new Set<{
    scope: LiveScope;
    handler: () => void;
    end: () => void;
    timer?: NodeJS.Timeout;
  }>();
  #listening: Promise<unknown> | undefined;

  constructor(db: Database, gapMs = 150) {
    this.#db = db;
    this.#gapMs = gapMs;
  }

  /**
   * Calls `handler` soon after each commit of activity in the scope, and `end` when the
   * process shuts down (a stream must not hold the listener open); returns how to stop.
   */
  async subscribe(scope: LiveScope, handler: () => void, end: () => void): Promise<() => void> {
    this.#listening ??= this.#db.listen(ACTIVITY_CHANNEL, (payload) => this.#notified(payload));
    await this.#listening;
    const page: { scope: LiveScope; handler: () => void; end: () => void; timer?: NodeJS.Timeout } = {
      scope,
      handler,
      end,
    };
    this.#pages.add(page);
    return () => {
      clearTimeout(page.timer);
      this.#pages.delete(page);
    };
  }

  /** Ends every open stream (the web app is closing). */
  close(): void {
    for (const page of this.#pages) {
      clearTimeout(page.timer);
      page.end();
    }
    this.#pages.clear();
  }

  #notified(payload: string): void {
    const [teamId, roomId] = payload.split(':');
    for (const page of this.#pages) {
      const hit = 'roomId' in page.scope ? page.scope.roomId === roomId : page.scope.teamId === teamId;
      if (!hit || page.timer) continue;
      page.timer = setTimeout(() => {
        page.timer = undefined;
        page.handler();
      }, this.#gapMs);
    }
  }
}

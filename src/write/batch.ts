import type { Clock } from '../core/clock.ts';
import { type Database, DatabaseBusyError, DatabaseUnavailableError } from '../db/database.ts';

/** One item's outcome in a batch: its result, or the error its own request answers with. */
export type Settled<Result> = { ok: true; value: Result } | { ok: false; error: unknown };

export interface BatcherOptions<Item> {
  /** The most items one batch takes. */
  maxItems: number;
  /**
   * Keys that may not appear twice in one batch (a viewer's identity, an Idempotency-Key):
   * an item sharing one with an item already taken waits for the next batch, so each batch
   * is exactly what running its items one after another would do.
   */
  exclusiveKeys(item: Item): readonly string[];
}

interface Pending<Item, Result> {
  item: Item;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

/**
 * Group commit: writes of one kind that arrive while a batch is being written wait, and are
 * then written together, in one transaction, by `run`, which settles each item on its own
 * (a refused item does not fail the others). Alone, an item is a batch of one, so a single
 * write and a burst take the same path. One batch runs at a time: under load each batch
 * takes everything that arrived during the previous one, so the cost of a transaction (its
 * round trips, its commit, the hot rows it holds) is shared by all of them.
 *
 * A batch that fails as a whole for an unexpected reason is run again item by item, so one
 * item that breaks a statement cannot fail the requests it happened to share a batch with.
 */
export class WriteBatcher<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private running = false;

  constructor(
    private readonly run: (items: readonly Item[]) => Promise<Settled<Result>[]>,
    private readonly options: BatcherOptions<Item>,
  ) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.length > 0) await this.runBatch(this.take());
    } finally {
      this.running = false;
    }
  }

  /** The next batch: queued items in arrival order, skipping those that clash with one taken. */
  private take(): Pending<Item, Result>[] {
    const taken: Pending<Item, Result>[] = [];
    const left: Pending<Item, Result>[] = [];
    const used = new Set<string>();
    for (const pending of this.queue) {
      const keys = this.options.exclusiveKeys(pending.item);
      if (taken.length >= this.options.maxItems || keys.some((key) => used.has(key))) {
        left.push(pending);
        continue;
      }
      for (const key of keys) used.add(key);
      taken.push(pending);
    }
    this.queue = left;
    return taken;
  }

  private async runBatch(batch: Pending<Item, Result>[]): Promise<void> {
    let outcomes: Settled<Result>[];
    try {
      outcomes = await this.run(batch.map((p) => p.item));
    } catch (err) {
      if (batch.length === 1 || !isolatable(err)) {
        for (const pending of batch) pending.reject(err);
        return;
      }
      for (const pending of batch) await this.runBatch([pending]);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i];
      if (!outcome) pending.reject(new Error('a batched write returned no outcome for an item'));
      else if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }
}

/** A saturated or unreachable database fails every item alike: running them one by one would only add load. */
function isolatable(err: unknown): boolean {
  return !(err instanceof DatabaseBusyError || err instanceof DatabaseUnavailableError);
}

/**
 * A writer's batchers, one per store and clock (a batch shares one transaction and one
 * "now"), each made when first asked for and forgotten with its store.
 */
export function batchersByStore<Item, Result>(
  make: (db: Database, clock: Clock) => WriteBatcher<Item, Result>,
): (db: Database, clock: Clock) => WriteBatcher<Item, Result> {
  const batchers = new WeakMap<Database, WeakMap<Clock, WriteBatcher<Item, Result>>>();
  return (db, clock) => {
    let byClock = batchers.get(db);
    if (!byClock) {
      byClock = new WeakMap();
      batchers.set(db, byClock);
    }
    let batcher = byClock.get(clock);
    if (!batcher) {
      batcher = make(db, clock);
      byClock.set(clock, batcher);
    }
    return batcher;
  };
}

import { DatabaseBusyError, type PoolStats } from './database.ts';

export interface AdmissionOptions {
  /** Work allowed at once (the pool's connections). */
  slots: number;
  /** Requests that may wait for a slot; one more is refused at once. */
  maxWaiting: number;
  /** How long a request may wait for a slot before it is refused. */
  maxWaitMs: number;
}

/**
 * A bounded queue in front of the connection pool. Under load, requests wait here (in
 * order) rather than inside the driver, so a request that cannot get a connection in time
 * is refused with DatabaseBusyError (a 503 with Retry-After) instead of failing as if the
 * database were broken, and a connection that cannot be opened is still a real failure.
 */
export class Admission {
  private free: number;
  private readonly queue: { grant: () => void; timer: NodeJS.Timeout }[] = [];
  private readonly counts = { waits: 0, sheds: 0 };

  constructor(private readonly options: AdmissionOptions) {
    this.free = options.slots;
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  stats(): PoolStats {
    return { ...this.counts, waiting: this.queue.length };
  }

  private acquire(): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    if (this.queue.length >= this.options.maxWaiting) {
      this.counts.sheds++;
      return Promise.reject(new DatabaseBusyError());
    }
    this.counts.waits++;
    return new Promise((resolve, reject) => {
      const entry = {
        grant: () => {
          clearTimeout(entry.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.queue.splice(this.queue.indexOf(entry), 1);
          this.counts.sheds++;
          reject(new DatabaseBusyError());
        }, this.options.maxWaitMs),
      };
      this.queue.push(entry);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) next.grant();
    else this.free++;
  }
}

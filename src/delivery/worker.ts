import type { Clock } from '../core/clock.ts';
import type { Metrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { isConnectionError } from '../db/database.ts';
import { GATE_FAILURES, pruneGateFailures } from '../link-page/repo.ts';
import { raiseLinkExpiries } from '../links/commands.ts';
import type { Mailer } from '../mail/mailer.ts';
import { deliverNotifications, queueDigests } from '../notifications/commands.ts';
import { completeSilentViews } from '../tracking/reading.ts';
import { SYSTEM, type WriteContexts } from '../write/context.ts';
import { pruneIdempotencyKeys, type WriteContext } from '../write/transaction.ts';
import { deliveryMetrics } from './metrics.ts';
import {
  type AttemptRecord,
  type ClaimedDelivery,
  claimDeliveries,
  pruneAttempts,
  pruneDeletedRoomEvents,
  pruneEvents,
  recordAttempts,
  releaseClaims,
} from './queue.ts';
import { nextStep } from './schedule.ts';
import { DELIVERY_TIMEOUT_MS, type Resolver, WebhookSender } from './sender.ts';

/** The little of a logger the worker uses (pino's signature). */
export interface WorkerLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface WorkerOptions {
  db: Database;
  clock: Clock;
  logger: WorkerLogger;
  metrics?: Metrics | undefined;
  /** Links in link.expired events are rendered under it. */
  appUrl: string;
  /** WEBHOOK_RETRY_BASE_MS: the first retry's delay. */
  retryBaseMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS. */
  allowPrivateUrls: boolean;
  userAgent: string;
  /** Deliveries in flight at once in this worker. */
  concurrency?: number;
  /** Deliveries in flight at once to one endpoint, from this worker. */
  perEndpoint?: number;
  timeoutMs?: number;
  /** How long a claim holds; longer than an attempt can last. */
  leaseMs?: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs?: number;
  /** How often expired links are looked for. */
  expiryEveryMs?: number;
  resolve?: Resolver;
  random?: () => number;
  /** The process's write contexts, made at its composition root: for the events and notifications it writes. */
  writeContext: WriteContexts;
  /** Mails the notifications (SMTP_URL); without it they are kept for the dashboard. */
  mailer?: Mailer | undefined;
}

/** Attempts older than this are pruned: an endpoint keeps its recent attempts. */
export const ATTEMPTS_KEPT_MS = 30 * 24 * 3600 * 1000;
/** A claim outlasts the attempt's timeout by this much: time to record the result. */
const LEASE_MARGIN_MS = 10_000;
/** While busy, claims are at least this far apart. */
const CLAIM_INTERVAL_MS = 10;
/** Attempts are recorded in batches of up to this many, or after this delay. */
const RECORD_BATCH = 64;
const RECORD_DELAY_MS = 5;
const HOUSEKEEPING_EVERY_MS = 3600 * 1000;
/** After a failure to reach the database, the worker waits this long before trying again. */
const OUTAGE_PAUSE_MS = 1000;

/**
 * Delivers the outbox: claims due deliveries (row locks with SKIP LOCKED, and a lease that
 * lapses if this process dies), sends each signed event, records the attempt and schedules
 * the retry or the dead letter. It also raises link.expired as links expire, and prunes
 * what is kept for a limited time. Any number of workers can share one PostgreSQL.
 */
export class DeliveryWorker {
  readonly #options: Required<Omit<WorkerOptions, 'metrics' | 'resolve' | 'mailer'>> &
    Pick<WorkerOptions, 'metrics' | 'resolve' | 'mailer'>;
  readonly #sender: WebhookSender;
  readonly #busy = new Map<string, number>();
  readonly #inFlight = new Set<Promise<void>>();
  #stopping = false;
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #wakeRequested = false;
  #lastExpiryCheck = 0;
  #lastHousekeeping = 0;
  #lastDigestCheck = 0;
  #outage = false;
  #lastClaim = 0;
  /** Attempts made, waiting to be recorded together. */
  #results: AttemptRecord[] = [];
  #flushTimer: NodeJS.Timeout | undefined;
  #flushing: Promise<void> = Promise.resolve();

  constructor(options: WorkerOptions) {
    const timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.#options = {
      concurrency: 64,
      perEndpoint: 8,
      leaseMs: timeoutMs + LEASE_MARGIN_MS,
      pollMs: 250,
      expiryEveryMs: 1000,
      random: Math.random,
      ...options,
      timeoutMs,
    };
    this.#sender = new WebhookSender({
      userAgent: options.userAgent,
      allowPrivate: options.allowPrivateUrls,
      timeoutMs,
      maxSocketsPerHost: this.#options.concurrency,
      resolve: options.resolve,
    });
  }

  start(): void {
    this.#running ??= this.#loop();
  }

  /** Looks for due deliveries now (a write just committed events). */
  wake(): void {
    this.#wakeRequested = true;
    this.#wake?.();
  }

  /** Stops claiming, lets the attempts in flight finish (each within its timeout), and closes. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#running;
    await Promise.allSettled([...this.#inFlight]);
    await this.#flush();
    this.#sender.close();
    this.#options.mailer?.close();
  }

  async #loop(): Promise<void> {
    while (!this.#stopping) {
      // While attempts are in flight, claims are spaced out, each taking every slot freed
      // since the one before; an idle worker claims as soon as it is woken.
      const wait = this.#lastClaim + CLAIM_INTERVAL_MS - Date.now();
      if (this.#inFlight.size > 0 && wait > 0) await new Promise((r) => setTimeout(r, wait));
      let claimed = 0;
      try {
        await this.#periodic();
        const free = this.#options.concurrency - this.#inFlight.size;
        if (free > 0) claimed = await this.#claim(free);
        if (this.#outage) {
          this.#outage = false;
          this.#options.logger.info({}, 'webhook worker: database reachable again');
        }
      } catch (err) {
        this.#reportFailure(err);
        await this.#sleep(OUTAGE_PAUSE_MS);
        continue;
      }
      // With nothing due, poll; otherwise come back when an attempt frees a slot.
      if (claimed === 0 || this.#inFlight.size >= this.#options.concurrency)
        await this.#sleep(this.#options.pollMs);
    }
  }

  async #periodic(): Promise<void> {
    const now = Date.now();
    if (now - this.#lastExpiryCheck >= this.#options.expiryEveryMs) {
      this.#lastExpiryCheck = now;
      const raised = await raiseLinkExpiries(this.#writeContext());
      if (raised > 0) this.#options.logger.info({ links: raised }, 'link.expired raised');
      const completed = await completeSilentViews(this.#writeContext());
      if (completed > 0)
        this.#options.logger.info({ views: completed }, 'views completed after their reports stopped');
      const removed = await pruneDeletedRoomEvents(this.#options.db);
      if (removed > 0) this.#options.logger.info({ events: removed }, "deleted rooms' events removed");
      if (now - this.#lastDigestCheck >= 60_000) {
        this.#lastDigestCheck = now;
        await queueDigests(this.#writeContext());
      }
      const notified = await deliverNotifications(this.#writeContext(), {
        mailer: this.#options.mailer,
        appUrl: this.#options.appUrl,
      });
      if (notified > 0) this.#options.logger.info({ notifications: notified }, 'notifications sent');
    }
    if (now - this.#lastHousekeeping >= HOUSEKEEPING_EVERY_MS) {
      this.#lastHousekeeping = now;
      const at = this.#options.clock.now();
      await pruneIdempotencyKeys(this.#options.db, at);
      await pruneGateFailures(this.#options.db, new Date(at.getTime() - GATE_FAILURES.windowMs));
      await pruneAttempts(this.#options.db, new Date(at.getTime() - ATTEMPTS_KEPT_MS));
      await pruneEvents(this.#options.db, new Date(at.getTime() - ATTEMPTS_KEPT_MS));
    }
  }

  async #claim(free: number): Promise<number> {
    this.#lastClaim = Date.now();
    const now = this.#options.clock.now();
    const claimed = await claimDeliveries(this.#options.db, {
      now,
      leaseUntil: new Date(now.getTime() + this.#options.leaseMs),
      limit: free,
      perEndpoint: this.#options.perEndpoint,
      busy: this.#busy,
    });
    if (this.#stopping) {
      await releaseClaims(this.#options.db, claimed, now);
      return 0;
    }
    for (const delivery of claimed) {
      this.#busy.set(delivery.endpointId, (this.#busy.get(delivery.endpointId) ?? 0) + 1);
      // An attempt never throws by design; were one to, its claim lapses and it is retried.
      const attempt = this.#deliver(delivery)
        .catch((err: unknown) => this.#reportFailure(err))
        .finally(() => {
          this.#inFlight.delete(attempt);
          const left = (this.#busy.get(delivery.endpointId) ?? 1) - 1;
          if (left === 0) this.#busy.delete(delivery.endpointId);
          else this.#busy.set(delivery.endpointId, left);
          this.#wake?.();
        });
      this.#inFlight.add(attempt);
    }
    return claimed.length;
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const { clock, retryBaseMs } = this.#options;
    const attemptedAt = clock.now();
    const result = await this.#sender.send(
      delivery.url,
      delivery.secrets,
      delivery.eventId,
      delivery.body,
      attemptedAt,
    );
    const step = nextStep(result, delivery.attempts + 1, retryBaseMs, this.#options.random());
    this.#results.push({
      delivery,
      attemptedAt,
      status: result.status,
      durationMs: result.status === null ? 0 : result.durationMs,
      error: result.error,
      detail: result.detail,
      elapsedMs: result.durationMs,
      next:
        step.kind === 'retry'
          ? { state: 'pending', at: new Date(clock.now().getTime() + step.delayMs) }
          : { state: step.kind === 'succeeded' ? 'succeeded' : 'dead' },
    });
    if (this.#results.length >= RECORD_BATCH) void this.#flush();
    else this.#flushTimer ??= setTimeout(() => void this.#flush(), RECORD_DELAY_MS);
  }

  /**
   * Records the attempts made since the last flush in one statement, one flush at a time.
   * If that fails, their claims lapse and the deliveries are attempted again, which
   * at-least-once allows.
   */
  #flush(): Promise<void> {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#flushing = this.#flushing.then(async () => {
      const batch = this.#results;
      this.#results = [];
      if (batch.length === 0) return;
      try {
        const moved = await recordAttempts(this.#options.db, batch);
        for (const record of batch) this.#report(record, moved.has(record.delivery.id));
      } catch (err) {
        this.#reportFailure(err);
      }
    });
    return this.#flushing;
  }

  /** Metrics, and a log line for each failure: which endpoint and why, never the secret, the payload or the URL's path and query. */
  #report(record: AttemptRecord, held: boolean): void {
    const { logger, metrics } = this.#options;
    const { delivery, next } = record;
    metrics &&
      deliveryMetrics(metrics).attempts.inc({ result: next.state === 'succeeded' ? 'succeeded' : 'failed' });
    if (!held) {
      logger.warn(
        { endpointId: delivery.endpointId, deliveryId: delivery.id, eventId: delivery.eventId },
        'webhook delivery: the claim lapsed before the attempt was recorded; another worker owns it now',
      );
      return;
    }
    if (next.state === 'succeeded') return;
    const context = {
      endpointId: delivery.endpointId,
      endpoint: safeUrl(delivery.url),
      eventId: delivery.eventId,
      type: delivery.type,
      attempt: delivery.attempts + 1,
      status: record.status,
      error: record.detail ?? record.error,
      durationMs: record.elapsedMs,
    };
    if (next.state === 'pending') {
      logger.warn(
        { ...context, retryAt: next.at.toISOString() },
        'webhook delivery failed; it will be retried',
      );
    } else {
      if (metrics) deliveryMetrics(metrics).deadLetters.inc();
      logger.warn(context, 'webhook delivery failed; moved to the dead-letter queue');
    }
  }

  #writeContext(): WriteContext {
    return this.#options.writeContext(SYSTEM);
  }

  /** A database outage is logged once, when it starts; any other failure each time. */
  #reportFailure(err: unknown): void {
    if (isConnectionError(err) || (err as Error)?.name === 'DatabaseUnavailableError') {
      if (this.#outage) return;
      this.#outage = true;
      this.#options.logger.error({ err }, 'webhook worker: database unreachable; retrying');
      return;
    }
    this.#options.logger.error({ err }, 'webhook worker: unexpected failure');
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    if (this.#wakeRequested) {
      this.#wakeRequested = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    }).finally(() => {
      this.#wakeRequested = false;
    });
  }
}

/** An endpoint for a log line: its origin only (a path or a query may hold a receiver's token). */
function safeUrl(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

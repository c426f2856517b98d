/**
 * What happens after an attempt (contract.md section 4): a 2xx succeeds; a timeout, a
 * network error, a 408, 429 or 5xx is retried with exponential backoff (base, then ×4,
 * with jitter; a longer Retry-After wins); any other status, or a 5th failure, goes to the
 * dead-letter queue.
 */

/** After this many failed attempts a delivery is a dead letter. */
export const MAX_ATTEMPTS = 5;
/** Each retry waits this many times longer than the one before. */
export const BACKOFF_FACTOR = 4;
/** A delay is the schedule's ± this fraction, so receivers that failed together are not retried together. */
export const JITTER = 0.2;
/** A Retry-After beyond this is capped: a receiver cannot park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** What one attempt came to: an HTTP status, or none (timeout, network error, refused address). */
export interface AttemptOutcome {
  status: number | null;
  /** The receiver's Retry-After, in milliseconds from now, when it sent one. */
  retryAfterMs?: number | undefined;
}

export type NextStep = { kind: 'succeeded' } | { kind: 'retry'; delayMs: number } | { kind: 'dead' };

/**
 * The step after the `attempts`-th attempt (1 for the first). `random` is in [0, 1), for
 * the jitter.
 */
export function nextStep(
  outcome: AttemptOutcome,
  attempts: number,
  baseMs: number,
  random: number = Math.random(),
): NextStep {
  const { status } = outcome;
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (!isRetryable(status) || attempts >= MAX_ATTEMPTS) return { kind: 'dead' };
  const scheduled = baseMs * BACKOFF_FACTOR ** (attempts - 1);
  const jittered = scheduled * (1 - JITTER + 2 * JITTER * random);
  const asked = Math.min(outcome.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS);
  return { kind: 'retry', delayMs: Math.round(Math.max(jittered, asked)) };
}

/** A timeout or network error (no status), 408, 429 and 5xx are worth another try. */
export function isRetryable(status: number | null): boolean {
  return status === null || status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * A Retry-After header as a delay in milliseconds from `now`: whole seconds, or an HTTP
 * date. Anything else is ignored.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(0, at - now.getTime());
}

import { budgetOf, type RateDecision, type RateLimiter, type RateLimits } from './limiter.ts';

/**
 * A sliding log per key and per team, in this process. A log never holds more than its
 * limit (requests are recorded only when admitted) and drops what has left the window;
 * logs left empty are swept away. Decisions are synchronous, so concurrent requests in one
 * process are counted exactly.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, number[]>();
  private decisions = 0;

  constructor(readonly limits: RateLimits) {}

  async consume(subject: { keyId: string; teamId: string }, nowMs: number): Promise<RateDecision> {
    return this.consumeNow(subject, nowMs);
  }

  consumeNow({ keyId, teamId }: { keyId: string; teamId: string }, nowMs: number): RateDecision {
    const { perKey, perTeam, windowMs } = this.limits;
    const keyLog = this.log(`key:${keyId}`, nowMs);
    const teamLog = this.log(`team:${teamId}`, nowMs);
    const allowed = keyLog.length < perKey && teamLog.length < perTeam;
    if (allowed) {
      record(keyLog, nowMs);
      record(teamLog, nowMs);
    }
    if (++this.decisions % 10_000 === 0) this.sweep(nowMs);
    return {
      allowed,
      key: budgetOf(perKey, keyLog.length, keyLog[0], windowMs, nowMs),
      team: budgetOf(perTeam, teamLog.length, teamLog[0], windowMs, nowMs),
    };
  }

  /** The subject's log with every entry older than the window dropped. */
  private log(name: string, nowMs: number): number[] {
    let log = this.logs.get(name);
    if (!log) {
      log = [];
      this.logs.set(name, log);
    }
    const cutoff = nowMs - this.limits.windowMs;
    let expired = 0;
    while (expired < log.length && (log[expired] as number) <= cutoff) expired++;
    if (expired > 0) log.splice(0, expired);
    return log;
  }

  private sweep(nowMs: number): void {
    const cutoff = nowMs - this.limits.windowMs;
    for (const [name, log] of this.logs) {
      if (log.length === 0 || (log[log.length - 1] as number) <= cutoff) this.logs.delete(name);
    }
  }

  /** Entries held, for tests of the memory bound. */
  size(): number {
    let total = 0;
    for (const log of this.logs.values()) total += log.length;
    return total;
  }

  async close(): Promise<void> {
    this.logs.clear();
  }
}

/** Keeps the log sorted even if the clock steps back. */
function record(log: number[], nowMs: number): void {
  let at = log.length;
  while (at > 0 && (log[at - 1] as number) > nowMs) at--;
  log.splice(at, 0, nowMs);
}

import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import type { WriteContext } from '../write/transaction.ts';

/** What a CLI command gets: the store, the clock and where its output goes. */
export interface CommandContext {
  config: Readonly<Config>;
  db: Database;
  clock: Clock;
  /** Lines for standard output: results a script may read (a key, a table). */
  out(line: string): void;
  /** Lines for standard error: progress and diagnostics. */
  err(line: string): void;
}

/** The write operations' context for a command: no idempotency key, no metrics. */
export function writeContext(ctx: CommandContext): WriteContext {
  return {
    db: ctx.db,
    clock: ctx.clock,
    appUrl: ctx.config.appUrl,
    allowPrivateUrls: ctx.config.webhooks.allowPrivateUrls,
  };
}

/** A failure the user can fix; printed as it is, without a stack, exit code 1. */
export class UsageError extends Error {}

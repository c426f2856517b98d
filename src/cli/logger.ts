import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import type { LogLevel } from '../config.ts';
import { REDACTED_PATHS } from '../http/server.ts';

/** JSON logs, keys and cookies redacted; pretty only when a person is watching a terminal. */
export function createLogger(level: LogLevel): Logger {
  const pretty = process.stdout.isTTY && canResolve('pino-pretty');
  return pino({
    level,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
  });
}

function canResolve(name: string): boolean {
  try {
    createRequire(import.meta.url).resolve(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * A long-running command's last word: an exception or a rejection nothing handled is logged
 * (with its stack, at fatal) before the process exits 1, instead of Node's bare print.
 */
export function logCrashes(logger: Logger): void {
  const crash = (err: unknown, origin: string) => {
    logger.fatal({ err, origin }, 'crashed: exiting');
    logger.flush?.();
    process.exit(1);
  };
  process.once('uncaughtException', (err) => crash(err, 'uncaughtException'));
  process.once('unhandledRejection', (err) => crash(err, 'unhandledRejection'));
}

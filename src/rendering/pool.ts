import { Piscina } from 'piscina';
import { DEFAULT_FILE_LIMITS, type FileLimits } from '../config.ts';
import { ApiError, ERRORS } from '../core/errors.ts';
import { threadBundle } from '../core/threads.ts';
import { type FileTask, type PageImage, REFUSED, UNREADABLE } from './protocol.ts';

/** The widths every page is rendered at (device pixels): a laptop's, a phone's, a thumbnail's. */
export const PAGE_WIDTHS = [1600, 800, 240] as const;
export type PageWidth = (typeof PAGE_WIDTHS)[number];

/**
 * The threads that touch file contents, so that no listener's thread ever parses, draws or
 * stamps a file: one for uploads, rendering and stamping (heavy, one at a time), two for
 * watermarks on page images (light, many small tasks). Each thread has a heap limit, each task
 * a time limit; a task past either is cancelled, its thread replaced, and the file refused.
 */
export interface FileWork {
  readonly limits: FileLimits;
  /** A file's page count (422 when it has too many pages or cannot be read within the limits). */
  inspect(path: string, type: string): Promise<{ pageCount: number }>;
  /** Pages drawn as images at every width of PAGE_WIDTHS. */
  render(path: string, type: string, pages: number[]): Promise<PageImage[]>;
  /** An image with the lines drawn into its pixels. */
  watermark(image: Uint8Array, lines: string[]): Promise<Uint8Array>;
  /** A PDF's copy with the lines on every page. */
  stamp(path: string, lines: string[]): Promise<Uint8Array>;
  close(): Promise<void>;
}

export function createFileWork(limits: FileLimits = DEFAULT_FILE_LIMITS): FileWork {
  const filename = import.meta.url.endsWith('.ts')
    ? (threadBundle(import.meta.url, 'task') ?? new URL('./task-boot.mjs', import.meta.url)).href
    : new URL('./task.js', import.meta.url).href;
  const pool = (maxThreads: number) =>
    new Piscina({
      filename,
      minThreads: 0,
      maxThreads,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: 64 },
    });
  const heavy = pool(1);
  const light = pool(2);
  // A thread's heap is capped by V8, but what a file inflates to (decoded streams, images)
  // lives outside that heap: the process's resident memory is watched while a heavy task
  // runs (one at a time), and the task is cancelled once it has grown by more than the limit.
  const run = async <T>(on: Piscina, task: FileTask): Promise<T> => {
    // A new thread's own start (its modules, pdf.js) is not the file's doing: it is made first.
    if (on === heavy && heavy.threads.length === 0) await heavy.run({ kind: 'warm' } satisfies FileTask);
    const cancel = new AbortController();
    const timer = setTimeout(
      () => cancel.abort(new Error('the time limit was reached')),
      limits.taskSeconds * 1000,
    );
    const base = process.memoryUsage.rss();
    const watch =
      on === heavy
        ? setInterval(() => {
            if (process.memoryUsage.rss() - base > limits.memoryMb * 1024 * 1024) {
              cancel.abort(new Error('the memory limit was reached'));
            }
          }, 50)
        : undefined;
    try {
      return (await on.run(task, { signal: cancel.signal })) as T;
    } catch (err) {
      throw refusal(cancel.signal.aborted ? cancel.signal.reason : err);
    } finally {
      clearTimeout(timer);
      clearInterval(watch);
    }
  };
  return {
    limits,
    inspect: (path, type) =>
      run(heavy, { kind: 'inspect', path, type, maxPages: limits.maxPages, maxPixels: limits.maxPixels }),
    render: (path, type, pages) =>
      run(heavy, {
        kind: 'render',
        path,
        type,
        pages,
        widths: [...PAGE_WIDTHS],
        maxPixels: limits.maxPixels,
      }),
    watermark: (image, lines) => run(light, { kind: 'watermark', image, lines }),
    stamp: (path, lines) => run(heavy, { kind: 'stamp', path, lines }),
    async close() {
      await Promise.all([heavy.destroy(), light.destroy()]);
    },
  };
}

/** A task's failure as the 422 the contract names, its reason kept for the log only. */
function refusal(err: unknown): ApiError {
  const reason = err instanceof Error ? err.message : String(err);
  if (reason.startsWith(UNREADABLE)) {
    const error = new ApiError(
      'unsupported_media_type',
      'The file starts like a PDF but cannot be read as one',
    );
    error.cause = reason.slice(UNREADABLE.length);
    return error;
  }
  const error = new ApiError('unprocessable_file', ERRORS.unprocessableFile.message);
  error.cause = reason.startsWith(REFUSED) ? reason.slice(REFUSED.length) : reason;
  return error;
}

/**
 * The process's file threads for an app built without its own (tests, tools): made on first
 * use with the default limits. `dealroom serve` makes its own from the configuration.
 */
export function sharedFileWork(): FileWork {
  shared ??= createFileWork();
  return shared;
}
let shared: FileWork | undefined;

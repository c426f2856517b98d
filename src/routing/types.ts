import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import type { FileWork } from '../rendering/pool.ts';
import type { WriteContext } from '../write/transaction.ts';
import type { KeptBodies } from './kept-bodies.ts';

/** Fastify typed by the TypeBox schemas each route declares. */
export type TypedFastify = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** What the read API's routes need, passed in by buildApp. */
export interface RouteDeps {
  db: Database;
  clock: Clock;
  appUrl: string;
  /** Rendered analytics bodies kept in this process (default 32 MiB). */
  analyticsCacheBytes?: number | undefined;
  /** Rendered pages of the rooms' lists kept in this process (LIST_CACHE_MB). */
  keptLists: KeptBodies;
}

/** What the management API's routes share: the store, and how a request's write is run. */
export interface AdminRouteDeps {
  db: Database;
  clock: Clock;
  /** The largest document file accepted (FILE_MAX_BYTES). */
  fileMaxBytes: number;
  /** The threads that read, draw and stamp files (rendering/pool.ts). */
  files: FileWork;
  /**
   * Runs a write operation for a request: with the request's Idempotency-Key, and on a
   * repeat of it, the first answer instead of a second change.
   */
  write<T>(request: FastifyRequest, operation: (ctx: WriteContext) => Promise<T>): Promise<T>;
}

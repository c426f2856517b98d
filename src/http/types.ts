import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Database } from '../db/database.ts';
import type { Clock } from '../shared/clock.ts';

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
}

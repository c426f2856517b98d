/**
 * The fairer ceiling: the service's own app factory (createServer: its logging, request ids,
 * hardening and error handling) with one route that makes one prepared primary-key query on
 * the service's PostgreSQL (DATABASE_URL, the same pool size), then answers a fixed JSON body
 * of the size asked for: `GET /one-query/N?id=ROOM`. A read of `/v1` compares to it as to a
 * route that does the least any read must do. Prints its address when listening.
 */
import { Type } from '@sinclair/typebox';
import { createMetrics } from '../src/core/metrics.ts';
import { openPostgres } from '../src/db/postgres.ts';
import { createServer } from '../src/http/server.ts';
import { bodyOf } from './bodies.ts';

const db = await openPostgres({
  connectionString: process.env.DATABASE_URL as string,
  maxConnections: Number(process.env.DB_POOL_SIZE ?? 10),
});
const app = createServer({
  api: 'read',
  logger: { level: 'warn' },
  metrics: createMetrics(),
  db,
  validationMessage: () => 'The request could not be understood',
});
app.get(
  '/one-query/:n',
  {
    schema: {
      params: Type.Object({ n: Type.String({ pattern: '^[0-9]{1,8}$' }) }),
      querystring: Type.Object({ id: Type.String({ format: 'uuid' }) }),
    },
  },
  async (request, reply) => {
    await db.query('SELECT id, name, total_views FROM deal_rooms WHERE id = $1', [request.query.id], {
      prepared: 'bench_one_query',
    });
    return reply.type('application/json; charset=utf-8').send(bodyOf(request.params.n));
  },
);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`one-query route listening on ${address}`);
process.once('SIGTERM', () =>
  app
    .close()
    .then(() => db.close())
    .then(() => process.exit(0)),
);

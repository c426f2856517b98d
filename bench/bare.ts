/**
 * The baseline: a bare Fastify route answering a fixed JSON body of the size asked for
 * (`GET /bytes/N`, and `POST /bytes/N` with a 201 for writes, its body parsed and dropped),
 * so each endpoint is compared with what the framework and the load generator cost on this
 * machine, in the same run. Prints its address when listening.
 */
import Fastify from 'fastify';
import { bodyOf } from './bodies.ts';

const app = Fastify({ logger: false });
app.get<{ Params: { n: string } }>('/bytes/:n', async (request, reply) =>
  reply.header('Content-Type', 'application/json; charset=utf-8').send(bodyOf(request.params.n)),
);
app.post<{ Params: { n: string } }>('/bytes/:n', async (request, reply) =>
  reply.code(201).header('Content-Type', 'application/json; charset=utf-8').send(bodyOf(request.params.n)),
);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare route listening on ${address}`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));

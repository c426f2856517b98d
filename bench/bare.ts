/**
 * The baseline: a bare Fastify route answering a fixed JSON body of the size asked for
 * (`GET /bytes/N`), so each endpoint is compared with what the framework and the load
 * generator cost on this machine, in the same run. Prints its address when listening.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const bodies = new Map<number, string>();
app.get<{ Params: { n: string } }>('/bytes/:n', async (request, reply) => {
  const n = Math.min(Number(request.params.n) || 0, 1 << 24);
  let body = bodies.get(n);
  if (body === undefined) {
    body = n < 10 ? '' : `{"data":"${'x'.repeat(n - 10)}"}`;
    bodies.set(n, body);
  }
  return reply.header('Content-Type', 'application/json; charset=utf-8').send(body);
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare route listening on ${address}`);
process.once('SIGTERM', () => app.close().then(() => process.exit(0)));

import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { type Config, parsePort } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { INTERNAL_ERROR_MESSAGE } from '../core/errors.ts';
import { createMetrics, type Metrics } from '../core/metrics.ts';
import { StoreBusyError } from '../db/lock.ts';
import { trackPool } from '../db/metrics.ts';
import { requireCurrentSchema } from '../db/migrate.ts';
import { openStore } from '../db/open.ts';
import { trackWebhookQueue } from '../delivery/metrics.ts';
import { startWorker } from '../delivery/start.ts';
import { adminTokenChecker } from '../management/token.ts';
import { UsageError } from './context.ts';
import { createLogger, logCrashes } from './logger.ts';

/**
 * `dealroom worker`: delivers webhooks until SIGTERM or SIGINT, then lets the attempts in
 * flight finish. Run as many as needed on one PostgreSQL; the embedded store's worker runs
 * inside `dealroom serve`.
 */
export async function workerCommand(config: Readonly<Config>, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { 'metrics-port': { type: 'string' } } });
  const problems: string[] = [];
  const metricsPort =
    values['metrics-port'] === undefined
      ? undefined
      : parsePort(values['metrics-port'], 0, '--metrics-port', problems);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const adminToken = config.management.adminToken;
  if (metricsPort !== undefined && !adminToken) {
    throw new UsageError('--metrics-port needs ADMIN_TOKEN: /metrics is internal, and answers only to it');
  }
  const logger = createLogger(config.logLevel);
  logCrashes(logger);
  let opened: Awaited<ReturnType<typeof openStore>>;
  try {
    opened = await openStore(config, (available, err) => {
      if (!available) logger.error({ err }, 'database unreachable: deliveries wait until it answers again');
    });
  } catch (err) {
    if (err instanceof StoreBusyError) {
      throw new UsageError(
        `the embedded store in ${err.dataDir} is in use by dealroom serve (process ${err.holder.pid}), which runs the webhook worker itself; a separate worker needs PostgreSQL (DATABASE_URL)`,
      );
    }
    throw err;
  }
  const { db } = opened;
  let metricsServer: Server | undefined;
  try {
    await requireCurrentSchema(db);
    const metrics = createMetrics().withDefaults();
    trackWebhookQueue(metrics, db, systemClock);
    trackPool(metrics, db, 'worker');
    const worker = startWorker(config, db, logger, metrics);
    if (metricsPort !== undefined && adminToken) {
      metricsServer = await serveMetrics(metrics, adminToken, config.management.host, metricsPort);
      const { port } = metricsServer.address() as AddressInfo;
      console.log(
        `Worker metrics on http://${config.management.host}:${port}/metrics (Authorization: Bearer $ADMIN_TOKEN)`,
      );
    }
    console.log(`Webhook worker running (${db.kind} store)`);
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        logger.info({ signal }, 'stopping: finishing the deliveries in flight');
        resolve();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
    });
    await worker.stop();
    logger.info('stopped');
    return 0;
  } finally {
    metricsServer?.close();
    await db.close();
  }
}

/** GET /metrics for a worker process, behind the admin token like the management API's. */
async function serveMetrics(
  metrics: Metrics,
  adminToken: string,
  host: string,
  port: number,
): Promise<Server> {
  const checkToken = adminTokenChecker(adminToken);
  const answer = (
    res: ServerResponse,
    status: number,
    body: object,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  };
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/healthz') {
      answer(res, 200, { status: 'ok' });
      return;
    }
    if (req.method !== 'GET' || req.url !== '/metrics') {
      answer(res, 404, { error: 'Not found', code: 'not_found' });
      return;
    }
    const refused = checkToken(req.headers.authorization);
    if (refused) {
      answer(res, 401, { error: refused.message, code: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
      return;
    }
    metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType });
        res.end(text);
      },
      () => answer(res, 500, { error: INTERNAL_ERROR_MESSAGE, code: 'internal_error' }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}

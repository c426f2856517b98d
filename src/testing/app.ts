import { buildApp } from '../app.ts';
import { DEFAULT_LIMITS } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import { createMetrics } from '../core/metrics.ts';
import type { Database } from '../db/database.ts';
import { MemoryRateLimiter } from '../rate-limit/memory.ts';
import { createViewStartWriter } from '../tracking/view-starts.ts';
import { buildWebApp, type WebDeps } from '../web/app.ts';
import { writeContexts } from '../write/context.ts';
import { openApiContract } from './openapi-contract.ts';

export const TEST_APP_URL = 'https://rooms.example.test';

/**
 * The web app in process, ready for `inject`: served at http://localhost:3000, logging off,
 * metrics, a view-start writer and write contexts of its own; `deps` replace any of these.
 */
export async function testWebApp(db: Database, clock: Clock, deps: Partial<WebDeps> = {}) {
  const given = {
    db,
    clock,
    appUrl: 'http://localhost:3000',
    logger: { level: 'silent' },
    metrics: createMetrics(),
    startView: createViewStartWriter(),
    ...deps,
  };
  const web = await buildWebApp({
    ...given,
    writeContext:
      deps.writeContext ??
      writeContexts({
        db: given.db,
        clock: given.clock,
        appUrl: given.appUrl,
        allowPrivateUrls: given.allowPrivateUrls,
        mailConfigured: given.mailer !== undefined,
        metrics: given.metrics,
      }),
  });
  await web.ready();
  return web;
}

/**
 * The real app as one process runs it (rate limits counted in memory, default limits), in
 * process, with logging off. Requests go through `app.inject`, and every response `get`
 * receives is checked against the OpenAPI document.
 */
export async function testApp(db: Database, clock: Clock, logger: object = { level: 'silent' }) {
  const rateLimiter = new MemoryRateLimiter(DEFAULT_LIMITS);
  const metrics = createMetrics();
  const app = await buildApp({ db, clock, appUrl: TEST_APP_URL, logger, rateLimiter, metrics });
  /** What the management listener's /metrics would show. */
  const scrape = () => metrics.registry.metrics();
  await app.ready();
  const matchesDocument = openApiContract(app);
  const get = async (url: string, key?: string, headers: Record<string, string> = {}) => {
    const response = await app.inject({
      method: 'GET',
      url,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
    });
    matchesDocument(url, response.statusCode, response.body, response.headers);
    return {
      status: response.statusCode,
      headers: response.headers,
      body: bodyOf(response.body),
      raw: response.body,
    };
  };
  return { app, get, scrape };
}

function bodyOf(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

import pino from 'pino';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { loadConfig } from '../config.ts';
import { type RunningServer, startServer } from '../server.ts';
import { LAPTOP, launchChromium, watchPage } from './browser.ts';
import { managementOver } from './management.ts';
import { freshStoreEnv, type StoreKind } from './stores.ts';

/** The whole service in process, its web app's address, its management API over HTTP, and a browser. */
export interface BrowserService {
  server: RunningServer;
  browser: Browser;
  /** The web app's address (the link pages and the dashboard). */
  web: string;
  admin: ReturnType<typeof managementOver>;
  /** `GET /v1{path}` on the read API with the key: the answer's `data`. */
  read(key: string, path: string): Promise<any>;
  /** Closes the browser and the service, then drops the store. */
  close(): Promise<void>;
}

/**
 * What every browser suite starts from: the whole service in process on a fresh copy of the
 * run's migrated store of the kind (its management API behind `adminToken`, its logs silent,
 * `env` on top), and a headless Chromium.
 */
export async function serviceWithBrowser(
  kind: StoreKind,
  adminToken: string,
  env: Record<string, string> = {},
): Promise<BrowserService> {
  const store = await freshStoreEnv(kind, { migrated: true });
  const config = loadConfig({
    ...store.env,
    ADMIN_TOKEN: adminToken,
    MANAGEMENT_PORT: '0',
    LOG_LEVEL: 'silent',
    MIGRATE_ON_START: 'true',
    ...env,
  });
  const server = await startServer(config, { port: 0, host: '127.0.0.1', logger: pino({ level: 'silent' }) });
  const browser = await launchChromium().catch(async (err: unknown) => {
    await server.close();
    await store.drop();
    throw err;
  });
  return {
    server,
    browser,
    web: server.webApp as string,
    admin: managementOver(() => server.managementApi ?? '', adminToken),
    async read(key, path) {
      const response = await fetch(`${server.readApi}/v1${path}`, { headers: { 'x-api-key': key } });
      return ((await response.json()) as { data: unknown }).data;
    },
    async close() {
      await browser.close();
      await server.close();
      await store.drop();
    },
  };
}

/**
 * A browser of its own (another person) with one page, watched for requests to other origins
 * and for what the Content-Security-Policy refused; what it saw is added to `problems` once,
 * when the page or its context closes.
 */
export async function newPerson(
  service: Pick<BrowserService, 'browser' | 'web'>,
  problems: string[],
  options: BrowserContextOptions = { viewport: LAPTOP },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await service.browser.newContext(options);
  const page = await context.newPage();
  const seen = watchPage(page, service.web);
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    problems.push(...seen.foreign, ...seen.refused);
  };
  page.on('close', tell);
  context.on('close', tell);
  return { context, page };
}

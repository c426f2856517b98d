import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../app.ts';
import { systemClock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { axeViolations, hasChromium, launchChromium } from '../testing/browser.ts';
import { openTestStore } from '../testing/stores.ts';

describe.runIf(hasChromium)('API reference page (headless Chromium)', () => {
  let db: Database;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let base: string;

  beforeAll(async () => {
    db = await openTestStore('embedded');
    app = await buildApp({ db, clock: systemClock, appUrl: 'https://x.test', logger: { level: 'silent' } });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await db?.close();
  });

  it('renders the six operations from the package, asking no other host for anything', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const requested: string[] = [];
      const blocked: string[] = [];
      page.on('request', (request) => requested.push(request.url()));
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) blocked.push(message.text());
      });
      const response = await page.goto(`${base}/docs`, { waitUntil: 'networkidle' });
      const headers = response?.headers() ?? {};
      expect(headers['content-security-policy']).toMatch(
        /default-src 'self'.*connect-src 'self'.*frame-ancestors 'none'/,
      );
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(await page.title()).toBe('Deal Room Analytics API reference');
      for (const summary of [
        'List deal rooms',
        'Get a deal room',
        'List documents',
        'List share links',
        'List viewers',
        'Get room analytics',
      ]) {
        await page.getByText(summary, { exact: true }).first().waitFor({ timeout: 15_000 });
      }
      if (process.env.DOCS_SCREENSHOT)
        await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
      const foreign = requested.filter(
        (url) => !url.startsWith(base) && !url.startsWith('data:') && !url.startsWith('blob:'),
      );
      // Ours to fix: the page's language and its text's contrast. (axe-core also reports ARIA
      // structure inside Scalar's own components, which its configuration cannot change.)
      const violations = await axeViolations(page);
      expect(violations.filter((v) => /^(html-has-lang|color-contrast) /.test(v))).toEqual([]);
      expect(foreign).toEqual([]);
      expect(blocked).toEqual([]);
      expect(requested).toContain(`${base}/v1/openapi.json`);
    } finally {
      await browser.close();
    }
  });
});

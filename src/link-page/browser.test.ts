import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberedPdf } from '../seed/pdf.ts';
import type { RunningServer } from '../server.ts';
import {
  axeViolations,
  hasChromium,
  LAPTOP,
  PHONE,
  pageOneShown,
  screenshot,
  watchPage,
} from '../testing/browser.ts';
import { type BrowserService, serviceWithBrowser } from '../testing/browser-service.ts';
import { type Receiver, startReceiver, until } from '../testing/receiver.ts';
import { storeKinds } from '../testing/stores.ts';

const ADMIN_TOKEN = 'browser-test-admin-token';
const PASSWORD = 'open sesame';
/** How long the test reads the deck, in seconds of real time. */
const READING_SECONDS = 13;

// The production store when there is one: the whole service in process, a real browser, a
// real webhook receiver, and the read API to check what the browser did.
const kind = storeKinds().at(-1) ?? 'embedded';

describe.runIf(hasChromium)(
  `the link page in headless Chromium (${kind} store)`,
  { timeout: 120_000 },
  () => {
    let server: RunningServer;
    let browser: Browser;
    let receiver: Receiver;
    let service: BrowserService;
    let key: string;
    let web: string;
    const ids = {} as Record<'room' | 'deck' | 'terms' | 'hidden' | 'link', string> & {
      shortId: string;
      expired: string;
    };
    const admin = (method: string, path: string, body?: unknown) => service.admin(method, path, body);
    const read = (path: string): Promise<unknown> => service.read(key, path);

    beforeAll(async () => {
      receiver = await startReceiver();
      service = await serviceWithBrowser(kind, ADMIN_TOKEN, { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
      ({ server, browser, web } = service);

      const team = (await admin('POST', '/teams', { name: 'Northwind Capital' })).data.id as string;
      key = (await admin('POST', `/teams/${team}/keys`, { name: 'CRM' })).data.key as string;
      await admin('POST', `/teams/${team}/webhook-endpoints`, { url: receiver.url('/hooks') });
      ids.room = (await admin('POST', `/teams/${team}/deal-rooms`, { name: 'Project Atlas — Series B' })).data
        .id as string;
      const document = async (body: Record<string, unknown>, pages: number) => {
        const id = (
          await admin('POST', `/deal-rooms/${ids.room}/documents`, { status: 'published', ...body })
        ).data.id as string;
        await admin('PUT', `/documents/${id}/file`, await numberedPdf(pages));
        return id;
      };
      ids.deck = await document({ name: 'deck.pdf', displayName: 'Investor deck', position: 1 }, 3);
      ids.terms = await document({ name: 'Term sheet.pdf', position: 2, downloadOverride: false }, 1);
      ids.hidden = await document({ name: 'Board minutes.pdf', position: 3 }, 1);
      const link = (
        await admin('POST', `/deal-rooms/${ids.room}/links`, {
          name: 'Lead investors',
          requiresEmail: true,
          password: PASSWORD,
          allowDownload: true,
          documentIds: [ids.deck, ids.terms],
        })
      ).data;
      ids.link = link.id as string;
      ids.shortId = link.shortId as string;
      ids.expired = (
        await admin('POST', `/deal-rooms/${ids.room}/links`, {
          name: 'Last round',
          expiresAt: '2026-01-01T00:00:00Z',
        })
      ).data.shortId as string;
    });
    afterAll(async () => {
      await service?.close();
      await receiver?.close();
    });

    it('gates, opens the room, renders and tracks a 3-page PDF, downloads, refuses; the API and webhooks show exactly that', async () => {
      const context = await browser.newContext({ viewport: LAPTOP });
      const page = await context.newPage();
      const watched = watchPage(page, web);

      // The gate: its labels, then a wrong password, then the right one.
      const gate = await page.goto(`${web}/v/${ids.shortId}`);
      expect(gate?.status()).toBe(200);
      expect(gate?.headers()['content-security-policy']).toMatch(/script-src 'self'.*frame-ancestors 'none'/);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Project Atlas — Series B',
      );
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'link-gate-laptop');
      await page.getByLabel('Email', { exact: true }).fill('ada@northwind.example');
      await page.getByLabel('Name', { exact: true }).fill('Ada Lovelace');
      await page.getByLabel('Password', { exact: true }).fill('not it');
      const [wrong] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);
      expect(wrong.status()).toBe(401);
      await page.getByText('Incorrect password').waitFor();
      expect(await axeViolations(page)).toEqual([]);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([
        page.waitForURL(`${web}/v/${ids.shortId}`),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);

      // The room: the documents this link shows, in sidebar order, and no other.
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
        'Project Atlas — Series B',
      );
      expect(await page.locator('main li a .doc-title').allTextContents()).toEqual([
        'Investor deck',
        'Term sheet.pdf',
      ]);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'link-room-laptop');

      // The viewer: every page rendered, a download, then reading for a measured time.
      await page.getByRole('link', { name: /Investor deck/ }).click();
      await page.waitForURL(`${web}/v/${ids.shortId}/d/${ids.deck}`);
      // Pages are images the service drew; they load as they come near the screen.
      for (const n of [1, 2, 3]) {
        await page.locator(`[data-page="${n}"]`).scrollIntoViewIfNeeded();
        await drawn(page, n);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      expect(
        await page.locator('[data-page]').evaluateAll((els) => els.map((e) => e.getAttribute('data-page'))),
      ).toEqual(['1', '2', '3']);
      const opened = Date.now();
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'link-viewer-laptop');
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'Download' }).click(),
      ]);
      const downloaded = readFileSync((await download.path()) as string);
      expect(downloaded.subarray(0, 5).toString()).toBe('%PDF-');
      expect(download.suggestedFilename()).toBe('Investor deck.pdf');

      // A reader moving through the pages: input every second keeps the time active.
      for (let second = 0; second < READING_SECONDS; second++) {
        await page.mouse.move(200 + second * 10, 300);
        if (second === 6) await page.locator('[data-page="2"]').scrollIntoViewIfNeeded();
        await page.waitForTimeout(1000);
      }
      const readSeconds = Math.round((Date.now() - opened) / 1000);
      // The tab is closed: the last seconds go out with sendBeacon and complete the view.
      await page.close({ runBeforeUnload: true });
      const completed = () =>
        receiver.to('/hooks').filter((r) => JSON.parse(r.body).type === 'view.completed');
      await until(() => completed().length > 0, 'view.completed', 15_000);

      // A document whose download is off, one the link does not show, a link that expired.
      const other = await context.newPage();
      const otherWatched = watchPage(other, web);
      const denied = await other.goto(`${web}/v/${ids.shortId}/d/${ids.terms}/download`);
      expect(denied?.status()).toBe(403);
      await other.getByRole('heading', { name: 'Downloads are not allowed' }).waitFor();
      const hidden = await other.goto(`${web}/v/${ids.shortId}/d/${ids.hidden}`);
      expect(hidden?.status()).toBe(404);
      const expired = await other.goto(`${web}/v/${ids.expired}`);
      expect(expired?.status()).toBe(410);
      await other.getByRole('heading', { name: 'This link is no longer active' }).waitFor();
      expect(await axeViolations(other)).toEqual([]);

      // Another browser, which never passed the gate: no bytes at any file address.
      const stranger = await browser.newContext();
      for (const path of ['file', 'download', 'pages/1?w=800']) {
        const answer = await stranger.request.get(`${web}/v/${ids.shortId}/d/${ids.deck}/${path}`);
        expect(answer.status()).toBe(404);
        expect((await answer.body()).includes(Buffer.from('%PDF'))).toBe(false);
      }
      await stranger.close();

      expect(watched.foreign).toEqual([]);
      expect(watched.refused).toEqual([]);
      expect(otherWatched.refused).toEqual([]);
      await context.close();

      // The read API: one visit, one viewer as given, one view lasting what was read, one download.
      const viewers = (await read(`/deal-rooms/${ids.room}/viewers`)) as Record<string, unknown>[];
      expect(viewers).toHaveLength(1);
      expect(viewers[0]).toMatchObject({
        email: 'ada@northwind.example',
        name: 'Ada Lovelace',
        totalViews: 1,
        documentsViewed: 1,
        linkName: 'Lead investors',
      });
      const duration = viewers[0]?.totalDurationSeconds as number;
      expect(Math.abs(duration - readSeconds)).toBeLessThanOrEqual(10);
      expect(duration).toBeGreaterThan(0);
      const links = (await read(`/deal-rooms/${ids.room}/links`)) as { id: string; totalClicks: number }[];
      expect(links.find((l) => l.id === ids.link)?.totalClicks).toBe(1);
      const analytics = (await read(`/deal-rooms/${ids.room}/analytics?period=all`)) as Record<
        string,
        unknown
      >;
      expect(analytics).toMatchObject({ totalViews: 1, uniqueViewers: 1, totalDownloads: 1 });

      // The webhooks: each of the viewer's events once, the completion carrying the duration.
      await until(
        () => receiver.to('/hooks').some((r) => JSON.parse(r.body).type === 'download.denied'),
        'download.denied',
      );
      const types = receiver.to('/hooks').map((r) => JSON.parse(r.body).type as string);
      for (const type of [
        'viewer.created',
        'view.started',
        'view.completed',
        'download.created',
        'download.denied',
      ]) {
        expect(
          types.filter((t) => t === type),
          type,
        ).toHaveLength(1);
      }
      expect(JSON.parse(completed()[0]?.body ?? '{}').data.durationSeconds).toBe(duration);

      // Per-page reading time adds up to the view's duration.
      const pages = (await admin('GET', `/documents/${ids.deck}/pages?period=all`)).data as {
        views: number;
        pages: { page: number; activeSeconds: number }[];
      };
      expect(pages.views).toBe(1);
      expect(pages.pages.reduce((sum, p) => sum + p.activeSeconds, 0)).toBe(duration);
    });

    it('protects a deck with downloads off and the watermark on: images only, each one per viewer, a viewer that opens at once', async () => {
      const link = (
        await admin('POST', `/deal-rooms/${ids.room}/links`, {
          name: 'Buyer — protected',
          requiresEmail: true,
          allowDownload: false,
          watermark: true,
          documentIds: [ids.deck],
        })
      ).data;
      const shortId = link.shortId as string;
      const open = async (email: string) => {
        const context = await browser.newContext({ viewport: LAPTOP });
        const page = await context.newPage();
        const watched = watchPage(page, web);
        const bodies: { url: string; type: string; body: Buffer }[] = [];
        page.on('response', async (response) => {
          const body = await response.body().catch(() => Buffer.alloc(0));
          bodies.push({ url: response.url(), type: response.headers()['content-type'] ?? '', body });
        });
        await page.goto(`${web}/v/${shortId}`);
        await page.getByLabel('Email', { exact: true }).fill(email);
        await Promise.all([
          page.waitForURL(`${web}/v/${shortId}`),
          page.getByRole('button', { name: 'Continue' }).click(),
        ]);
        await page.getByRole('link', { name: /Investor deck/ }).click();
        await drawn(page, 1);
        return { context, page, watched, bodies };
      };
      const one = await open('cfo@buyer.example');
      const { page } = one;
      // Page 1 is on screen first; no Download where downloads are off.
      expect(await page.locator('[data-page="1"] img').getAttribute('loading')).toBe('eager');
      expect(await page.getByRole('link', { name: 'Download' }).count()).toBe(0);
      await expect(page.locator('[data-counter]').textContent()).resolves.toBe('1 / 3');
      // Next, previous, the arrow keys and jump move the counter.
      await page.getByRole('button', { name: 'Next page' }).click();
      await until(async () => (await page.locator('[data-counter]').textContent()) === '2 / 3', 'next');
      expect(await belowBar(page, 2)).toSatisfy((gap: number) => gap >= 0 && gap <= 16);
      await page.keyboard.press('ArrowRight');
      await until(async () => (await page.locator('[data-counter]').textContent()) === '3 / 3', 'arrow key');
      await page.getByRole('button', { name: 'Previous page' }).click();
      await until(async () => (await page.locator('[data-counter]').textContent()) === '2 / 3', 'previous');
      await page.getByLabel('Go to page').fill('1');
      await page.getByLabel('Go to page').press('Enter');
      await until(async () => (await page.locator('[data-counter]').textContent()) === '1 / 3', 'jump');
      for (const n of [2, 3]) {
        await page.locator(`[data-page="${n}"]`).scrollIntoViewIfNeeded();
        await drawn(page, n);
      }
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'link-viewer-protected-laptop');

      // Another viewer of the same link gets other pixels: their own email is drawn in.
      const two = await open('analyst@buyer.example');
      const imageOf = (p: typeof page) =>
        p.evaluate(async () => {
          const source = document.querySelector('[data-page="1"] img')?.getAttribute('src') ?? '';
          return [...new Uint8Array(await (await fetch(source)).arrayBuffer())];
        });
      const [a, b] = [Buffer.from(await imageOf(page)), Buffer.from(await imageOf(two.page))];
      expect(a.subarray(8, 12).toString()).toBe('WEBP');
      expect(Buffer.compare(a, b)).not.toBe(0);

      // Trying the download gets the refusal, and nothing that reached either browser is the
      // file or any PDF.
      const refused = await page.goto(`${web}/v/${shortId}/d/${ids.deck}/download`);
      expect(refused?.status()).toBe(403);
      const original = await numberedPdf(3);
      for (const { url, type, body } of [...one.bodies, ...two.bodies]) {
        expect(type, url).not.toContain('pdf');
        expect(body.includes(Buffer.from('%PDF')), url).toBe(false);
        expect(body.includes(Buffer.from(original.subarray(0, 400))), url).toBe(false);
      }
      expect(one.watched.refused).toEqual([]);
      expect(two.watched.refused).toEqual([]);
      await one.context.close();
      await two.context.close();
    });

    it('shows a page drawn after the viewer opened, even when its first answer came before the viewer script ran', async () => {
      const id = (
        await admin('POST', `/deal-rooms/${ids.room}/documents`, { name: 'Late.pdf', status: 'published' })
      ).data.id as string;
      await admin('PUT', `/documents/${id}/file`, await numberedPdf(2));
      // Drawn by the renderer, then undrawn and held from it, as if a busy one had not come to it yet.
      const ready = async () =>
        (
          await server.db.query<{ ready: number }>(
            'SELECT pages_ready AS ready FROM document_versions WHERE document_id = $1',
            [id],
          )
        )[0]?.ready;
      await until(async () => (await ready()) === 2, 'the document drawn');
      await server.db.query(
        `WITH held AS (UPDATE document_versions SET pages_ready = 0, render_claimed_until = 'infinity'
                        WHERE document_id = $1 RETURNING id)
         DELETE FROM page_images WHERE version_id IN (SELECT id FROM held)`,
        [id],
      );
      const shortId = (
        await admin('POST', `/deal-rooms/${ids.room}/links`, { name: 'Late reader', documentIds: [id] })
      ).data.shortId as string;

      const context = await browser.newContext({ viewport: LAPTOP });
      const page = await context.newPage();
      const watched = watchPage(page, web);
      // The viewer's script comes late: the pages' first answers (503) arrive before it runs.
      await page.route('**/assets/viewer.js', async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        await route.continue();
      });
      await page.goto(`${web}/v/${shortId}`);
      const refused = page.waitForResponse((r) => r.url().includes('/pages/1?') && r.status() === 503);
      await page.getByRole('link', { name: /Late\.pdf/ }).click();
      await refused;
      await page.locator('[data-ready="true"]').waitFor();
      await server.db.query(
        'UPDATE document_versions SET render_claimed_until = NULL WHERE document_id = $1',
        [id],
      );
      await pageOneShown(page, 20_000);
      expect(watched.foreign).toEqual([]);
      expect(watched.refused).toEqual([]);
      await context.close();
    });

    it('fits a phone: the gate, the room and the viewer at 390 px wide, with no serious accessibility violation', async () => {
      const context = await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
      const page = await context.newPage();
      const watched = watchPage(page, web);
      await page.goto(`${web}/v/${ids.shortId}`);
      await screenshot(page, 'link-gate-phone');
      await page.getByLabel('Email', { exact: true }).fill('grace@harbor.example');
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await Promise.all([
        page.waitForURL(`${web}/v/${ids.shortId}`),
        page.getByRole('button', { name: 'Continue' }).click(),
      ]);
      expect(await axeViolations(page)).toEqual([]);
      await screenshot(page, 'link-room-phone');
      await page.getByRole('link', { name: /Investor deck/ }).click();
      await drawn(page, 1);
      // A sideways swipe turns the page.
      await swipe(page, -150);
      await until(
        async () => (await page.locator('[data-counter]').textContent()) === '2 / 3',
        'page 2 by swipe',
      );
      // The page turned to starts just below the bar, which takes two rows on a phone.
      expect(await belowBar(page, 2)).toSatisfy((gap: number) => gap >= 0 && gap <= 16);
      expect(await axeViolations(page)).toEqual([]);
      // Nothing wider than the screen: no sideways scrolling on a phone.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
        PHONE.width,
      );
      await screenshot(page, 'link-viewer-phone');
      expect(watched.foreign).toEqual([]);
      expect(watched.refused).toEqual([]);
      await context.close();
    });
  },
);

/** Waits until page `n` of the viewer shows its image, drawn by the service (retried while it was being drawn), and the viewer's script runs. */
async function drawn(page: import('playwright-core').Page, n: number): Promise<void> {
  await page.waitForFunction(
    (number) => {
      const image = document.querySelector<HTMLImageElement>(`[data-page="${number}"] img`);
      // ...and the viewer's script is running (its controls answer).
      return Boolean(
        image?.complete && image.naturalWidth > 0 && document.querySelector('#pages[data-ready]'),
      );
    },
    n,
    { timeout: 30_000 },
  );
}

/**
 * Once the scroll has settled, how far below the viewer's sticky bar page `n` starts, in CSS
 * pixels (negative: its top is hidden under the bar).
 */
async function belowBar(page: import('playwright-core').Page, n: number): Promise<number> {
  const gap = () =>
    page.evaluate((number) => {
      const bar = document.querySelector('.viewer-head')?.getBoundingClientRect().bottom ?? 0;
      const top = document.querySelector(`[data-page="${number}"]`)?.getBoundingClientRect().top ?? 0;
      return Math.round(top - bar);
    }, n);
  let last = await gap();
  for (let tries = 0; tries < 50; tries++) {
    await page.waitForTimeout(100);
    const now = await gap();
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** A one-finger sideways swipe across the pages (dx < 0: to the left). */
async function swipe(page: import('playwright-core').Page, dx: number): Promise<void> {
  await page.evaluate((by) => {
    const target = document.getElementById('pages') as HTMLElement;
    const touch = (x: number) =>
      new Touch({ identifier: 1, target, clientX: x, clientY: 300, pageX: x, pageY: 300 });
    target.dispatchEvent(
      new TouchEvent('touchstart', { touches: [touch(200)], changedTouches: [touch(200)], bubbles: true }),
    );
    target.dispatchEvent(
      new TouchEvent('touchend', { touches: [], changedTouches: [touch(200 + by)], bubbles: true }),
    );
  }, dx);
}

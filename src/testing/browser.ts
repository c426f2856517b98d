import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the browser suites run: Chromium is here, or CI requires it (and a missing one fails). */
export const hasChromium = existsSync(CHROMIUM) || process.env.REQUIRE_CHROMIUM === '1';

/** Where screenshots go when SCREENSHOTS_DIR is set (docs/screenshots is made this way); none otherwise. */
export const SCREENSHOTS_DIR = process.env.SCREENSHOTS_DIR;

export const LAPTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Debian's Chromium, headless, asking no other host for anything. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * What a page did that it should not: a request to any other origin, or anything the
 * Content-Security-Policy refused (Chromium reports each refusal on the console).
 */
export function watchPage(page: Page, origin: string): { foreign: string[]; refused: string[] } {
  const seen = { foreign: [] as string[], refused: [] as string[] };
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('blob:'))
      seen.foreign.push(url);
  });
  page.on('console', (message) => {
    if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) seen.refused.push(message.text());
  });
  return seen;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical accessibility violations axe-core finds on the page as it stands. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the browser's debugging protocol, so the page's CSP (rightly) does not
  // stand in the way of the checker; the page itself loads no inline script.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: () => Promise<{
            violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => String(n.target)),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.targets.join(', ')}`);
}

/** Resolves once the viewer shows page 1 as an image the service drew (the viewer retries a page still being drawn). */
export async function pageOneShown(page: Page, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    () => {
      const image = document.querySelector<HTMLImageElement>('[data-page="1"] img');
      return Boolean(image?.complete && image.naturalWidth > 0);
    },
    undefined,
    { timeout: timeoutMs },
  );
}

/** Saves a screenshot as docs/screenshots/NAME.png when SCREENSHOTS_DIR is set. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS_DIR) return;
  await page.screenshot({ path: `${SCREENSHOTS_DIR}/${name}.png`, fullPage: false });
}

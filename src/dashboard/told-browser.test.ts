import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../cli/commands.ts';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { numberedPdf } from '../seed/pdf.ts';
import { axeViolations, hasChromium, screenshot } from '../testing/browser.ts';
import { type BrowserService, newPerson, serviceWithBrowser } from '../testing/browser-service.ts';
import { until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { storeKinds } from '../testing/stores.ts';

const ADMIN_TOKEN = 'told-browser-admin-token';
const PASSWORD = 'correct horse battery';
const kind = storeKinds().at(-1) ?? 'embedded';

describe.runIf(hasChromium)(
  `the team is told, in headless Chromium: the live feed and the visit email (${kind} store)`,
  { timeout: 150_000 },
  () => {
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let service: BrowserService;
    let web: string;
    const ids = {} as Record<'team' | 'room' | 'shortId', string>;
    const problems: string[] = [];

    const admin = (method: string, path: string, body?: unknown) => service.admin(method, path, body);

    beforeAll(async () => {
      smtp = await startSmtpServer();
      service = await serviceWithBrowser(kind, ADMIN_TOKEN, {
        SMTP_URL: smtp.url,
        VISIT_EMAIL_DELAY_SECONDS: '30',
      });
      web = service.web;
      ids.team = (await admin('POST', '/teams', { name: 'Northwind Capital' })).data.id as string;
      await admin('PATCH', `/teams/${ids.team}`, { timezone: 'America/New_York' });
      ids.room = (await admin('POST', `/teams/${ids.team}/deal-rooms`, { name: 'Project Atlas' })).data
        .id as string;
      for (const [name, pages] of [
        ['Teaser', 2],
        ['CIM', 3],
      ] as const) {
        const id = (await admin('POST', `/deal-rooms/${ids.room}/documents`, { name, status: 'published' }))
          .data.id as string;
        await admin('PUT', `/documents/${id}/file`, await numberedPdf(pages));
      }
      ids.shortId = (
        await admin('POST', `/deal-rooms/${ids.room}/links`, {
          name: 'Buyers',
          requiresEmail: true,
          allowDownload: false,
        })
      ).data.shortId as string;
    });
    afterAll(async () => {
      await service?.close();
      await smtp?.stop();
    });

    const person = async (): Promise<Page> => (await newPerson(service, problems)).page;

    /** Reads the open document for a while: the viewer counts time only on a visible, focused page. */
    async function read(page: Page, seconds: number) {
      await page.locator('[data-page="1"] img').waitFor();
      await page.mouse.move(200, 300);
      for (let s = 0; s < seconds; s++) {
        await page.mouse.move(200 + (s % 2) * 10, 300);
        await page.waitForTimeout(1000);
      }
    }

    it('follows a room; sees a visit on the overview without reloading; gets one email naming the documents, pages and time', async () => {
      const invited = await runCaptured(
        { config: loadConfig({ APP_URL: web }), db: service.server.db, clock: systemClock },
        ['users', 'create', '--team', ids.team, '--email', 'olivia@northwind.example', '--role', 'owner'],
      );
      expect(invited.code, invited.stderr.join('\n')).toBe(0);
      const owner = await person();
      await owner.goto(invited.stdout[0] as string);
      await owner.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await owner.getByLabel('Confirm password').fill(PASSWORD);
      await Promise.all([
        owner.waitForURL(`${web}/app/rooms`),
        owner.getByRole('button', { name: 'Set password' }).click(),
      ]);
      await owner.goto(`${web}/app/rooms/${ids.room}`);
      await owner.getByRole('button', { name: 'Follow' }).click();
      await owner.getByRole('button', { name: 'Unfollow' }).waitFor();
      await until(
        async () => (await owner.locator('#live').getAttribute('data-live')) === 'stream',
        'the stream',
      );

      // A recipient reads the two documents.
      const reader = await person();
      await reader.goto(`${web}/v/${ids.shortId}`);
      await reader.getByLabel('Email').fill('cfo@buyer.example');
      await reader.getByLabel('Name').fill('Carla');
      await reader.getByRole('button', { name: 'Continue' }).click();
      // The owner's overview shows the visit within a second or two, without reloading, before
      // any document is opened; then the document opened.
      const shown = (text: RegExp) =>
        owner.locator('#live li', { hasText: text }).first().waitFor({ timeout: 3000 });
      await reader.getByRole('link', { name: 'Teaser' }).waitFor();
      await shown(/cfo@buyer\.example visited through/);
      await reader.getByRole('link', { name: 'Teaser' }).click();
      await shown(/cfo@buyer\.example opened Teaser/);
      await read(reader, 3);
      await reader.goto(`${web}/v/${ids.shortId}`);
      await reader.getByRole('link', { name: 'CIM' }).click();
      await read(reader, 3);
      await reader.goto(`${web}/v/${ids.shortId}`);
      await look(owner, 'overview-live');

      // One email, 30 s after the visit started (the worker looks every second): time enough
      // for both documents to be read first on two busy cores, where 12 s once was not.
      await until(
        () => smtp.received.some((m) => m.to.includes('olivia@northwind.example')),
        'the visit email',
        60_000,
      );
      const raw = (smtp.received.find((m) => m.to.includes('olivia@northwind.example'))?.raw ?? '').replace(
        /\r?\n[ \t]+/g,
        ' ',
      );
      expect(raw).toMatch(/Subject: cfo@buyer\.example opened Project Atlas/);
      expect(raw).toContain('(Carla)');
      expect(raw).toMatch(/- Teaser: \d+ s, pages 1/);
      expect(raw).toMatch(/- CIM: \d+ s, pages 1/);
      expect(raw).toMatch(/ E[SD]T\./);
      // The SMTP server has the email a moment before the worker records it as sent (its
      // subject too): the page, a page as any, shows what is recorded when it is loaded.
      await until(
        async () => {
          await owner.goto(`${web}/app/notifications`);
          return owner.getByText('cfo@buyer.example opened Project Atlas').isVisible();
        },
        'the sent email on the notifications page',
        30_000,
      );
      await look(owner, 'notifications');

      // The unsubscribe address, one POST as a mail client sends it.
      // APP_URL is the public address; this server listens on a port of its own.
      const address = (/List-Unsubscribe: <([^>]+)>/.exec(raw)?.[1] ?? '').replace(/^https?:\/\/[^/]+/, web);
      const answer = await fetch(address, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(answer.status).toBe(200);
      await owner.goto(`${web}/app/rooms/${ids.room}`);
      await owner.getByRole('button', { name: 'Follow' }).waitFor();
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(smtp.received.filter((m) => m.to.includes('olivia@northwind.example'))).toHaveLength(1);
      expect(problems).toEqual([]);
    });

    async function look(page: Page, name: string) {
      expect(await axeViolations(page), name).toEqual([]);
      await screenshot(page, `told-${name}`);
    }
  },
);

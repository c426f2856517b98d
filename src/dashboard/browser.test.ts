import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../cli/commands.ts';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { numberedPdf } from '../seed/pdf.ts';
import type { RunningServer } from '../server.ts';
import { axeViolations, hasChromium, LAPTOP, PHONE, pageOneShown, screenshot } from '../testing/browser.ts';
import { type BrowserService, newPerson, serviceWithBrowser } from '../testing/browser-service.ts';
import { SETTING_NAME } from '../testing/pages.ts';
import { type Receiver, startReceiver, until } from '../testing/receiver.ts';
import { storeKinds } from '../testing/stores.ts';
import { tempDir } from '../testing/temp.ts';

const ADMIN_TOKEN = 'dashboard-test-admin-token';
const OWNER_PASSWORD = 'correct horse battery';
const LINK_PASSWORD = 'northwind-2026';
const kind = storeKinds().at(-1) ?? 'embedded';

/** Whether a delivery's signature is the secret's (the Standard Webhooks reference library). */
function verifyWebhook(body: string, headers: Record<string, string>, secret: string): unknown {
  return new Webhook(secret).verify(body, headers);
}

describe.runIf(hasChromium)(
  `the dashboard in headless Chromium (${kind} store)`,
  { timeout: 180_000 },
  () => {
    let server: RunningServer;
    let receiver: Receiver;
    let service: BrowserService;
    let web: string;
    let teamId: string;
    const files = tempDir('dashboard-files');
    const problems: string[] = [];

    beforeAll(async () => {
      receiver = await startReceiver();
      service = await serviceWithBrowser(kind, ADMIN_TOKEN, { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
      ({ server, web } = service);
      teamId = (await service.admin('POST', '/teams', { name: 'Northwind Capital' })).data.id as string;
      writeFileSync(join(files, 'Investor deck.pdf'), await numberedPdf(3));
      writeFileSync(join(files, 'Term sheet.pdf'), await numberedPdf(1));
    });
    afterAll(async () => {
      await service?.close();
      await receiver?.close();
    });

    /** A new browser of its own (another person), every page watched for foreign requests and CSP refusals. */
    const person = (viewport = LAPTOP) => newPerson(service, problems, { viewport });

    /**
     * Looks at the page as it stands: no serious accessibility violation, no setting's name
     * (SMTP_URL, APP_URL...: the operator's words, not the team's); a screenshot when asked.
     */
    async function check(page: Page, name: string) {
      expect(await axeViolations(page), name).toEqual([]);
      expect(await page.locator('body').innerText(), name).not.toMatch(SETTING_NAME);
      await screenshot(page, `dashboard-${name}`);
    }

    /** The invitation address `dealroom users create` prints, through the CLI's own code path. */
    async function invite(email: string, role: string): Promise<string> {
      const result = await runCaptured(
        { config: loadConfig({ APP_URL: web }), db: server.db, clock: systemClock },
        ['users', 'create', '--team', teamId, '--email', email, '--role', role],
      );
      expect(result.code, result.stderr.join('\n')).toBe(0);
      return result.stdout[0] as string;
    }

    it('walks a new team through it: invitation, room, upload, link, a reader, figures, a key, a webhook; a member reads only', async () => {
      const address = await invite('olivia@northwind.example', 'owner');
      expect(address).toMatch(new RegExp(`^${web}/invite/[A-Za-z0-9_-]{43}$`));
      const { context, page } = await person();

      // The invitation: a password, then signed in, on the rooms page.
      await page.goto(address);
      await check(page, 'invite');
      await page.getByLabel('Password', { exact: true }).fill(OWNER_PASSWORD);
      await page.getByLabel('Confirm password').fill(OWNER_PASSWORD);
      await Promise.all([
        page.waitForURL(`${web}/app/rooms`),
        page.getByRole('button', { name: 'Set password' }).click(),
      ]);
      // The address works once.
      expect((await fetch(address)).status).toBe(404);

      // A room, two documents, a link that shows one of them behind a password, downloads off.
      await page.getByLabel('Name').fill('Project Atlas <Series B>');
      await Promise.all([
        page.waitForURL(/\/documents\?done=room-created$/),
        page.getByRole('button', { name: 'Create room' }).click(),
      ]);
      const roomId = /\/app\/rooms\/([0-9a-f-]{36})\//.exec(page.url())?.[1] as string;
      for (const file of ['Investor deck.pdf', 'Term sheet.pdf']) {
        await page.getByLabel('File').setInputFiles(join(files, file));
        // The page sends the file itself (with its progress), then opens the list again.
        await Promise.all([
          page.waitForEvent('framenavigated'),
          page.getByRole('button', { name: 'Upload' }).click(),
        ]);
        await page.waitForLoadState('load');
        await page.getByRole('row', { name: new RegExp(file.replace('.', '\\.')) }).waitFor();
      }
      await expect(page.getByRole('row', { name: /Investor deck\.pdf.*PDF, 3 pages/ }).count()).resolves.toBe(
        1,
      );
      await check(page, 'documents');
      // Reordering needs no reload: the list is drawn again in place, the focus kept.
      const names = () =>
        page
          .locator('[data-reorder] tbody th')
          .evaluateAll((cells) => cells.map((c) => c.textContent?.trim()));
      expect(await names()).toEqual(['Investor deck.pdf', 'Term sheet.pdf']);
      let reloaded = false;
      page.once('load', () => {
        reloaded = true;
      });
      await page.getByRole('button', { name: 'Move down' }).click();
      await expect.poll(names).toEqual(['Term sheet.pdf', 'Investor deck.pdf']);
      expect(reloaded).toBe(false);
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Move up');
      await check(page, 'documents');
      await page.getByRole('link', { name: 'Links' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Lead investors');
      await page.getByLabel('Password', { exact: true }).fill(LINK_PASSWORD);
      await page.getByLabel('Only these documents:').check();
      await page.getByLabel('Investor deck.pdf').check();
      await page.getByLabel('Downloads allowed').uncheck();
      await Promise.all([
        page.waitForURL(/\/app\/links\/.*done=link-created$/),
        page.getByRole('button', { name: 'Create link' }).click(),
      ]);
      const shareUrl = (await page.locator('code.address').first().textContent()) as string;
      expect(shareUrl).toMatch(/\/v\/[A-Za-z0-9_-]+$/);
      const linkPage = page.url().replace(/\?.*$/, '');
      // This service sends no email here.
      await expect(
        page.getByText('Needs email, which this service is not set up to send').count(),
      ).resolves.toBe(1);
      await check(page, 'link');

      // Someone else reads the deck through the link.
      const reader = await person();
      await reader.page.goto(shareUrl.replace(/^https?:\/\/[^/]+/, web));
      await reader.page.getByLabel('Email', { exact: true }).fill('ada@harbor.example');
      await reader.page.getByLabel('Password', { exact: true }).fill(LINK_PASSWORD);
      await reader.page.getByRole('button', { name: 'Continue' }).click();
      expect(await reader.page.locator('main li a .doc-title').allTextContents()).toEqual([
        'Investor deck.pdf',
      ]);
      await reader.page.getByRole('link', { name: /Investor deck/ }).click();
      // Page 1 as the image the service drew (retried by the viewer while it is drawn).
      await pageOneShown(reader.page, 30_000);
      expect(await reader.page.getByRole('link', { name: 'Download' }).count()).toBe(0);
      for (let second = 0; second < 12; second++) {
        await reader.page.mouse.move(100 + second * 10, 300);
        if (second === 5) await reader.page.locator('[data-page="2"]').scrollIntoViewIfNeeded();
        await reader.page.waitForTimeout(1000);
      }
      await reader.page.close({ runBeforeUnload: true });
      await reader.context.close();

      // The team sees it: the overview, the viewer's timeline, the page times.
      await until(
        async () => {
          await page.goto(`${web}/app/rooms/${roomId}/viewers`);
          return (await page.getByRole('link', { name: 'ada@harbor.example' }).count()) === 1;
        },
        'the reader in the viewers table',
        20_000,
      );
      await check(page, 'viewers');
      await page.getByRole('link', { name: 'ada@harbor.example' }).click();
      await until(async () => {
        await page.reload();
        return (await page.getByRole('cell', { name: 'Viewed', exact: true }).count()) === 1;
      }, 'the completed view in the timeline');
      await expect(page.getByRole('cell', { name: 'Opened the link' }).count()).resolves.toBe(1);
      await check(page, 'viewer');
      // The link's page names who came through it.
      await page.goto(linkPage);
      const visitors = page.getByRole('table', { name: 'Who came through this link' });
      await expect(visitors.getByRole('row', { name: /ada@harbor\.example 1/ }).count()).resolves.toBe(1);
      expect(await axeViolations(page), 'link, visited').toEqual([]);
      await page.goto(`${web}/app/rooms/${roomId}?period=7d`);
      const overview = page.getByRole('table', { name: 'Top documents' });
      await expect(overview.getByRole('row', { name: /Investor deck\.pdf 1/ }).count()).resolves.toBe(1);
      await check(page, 'overview');
      await overview.getByRole('link', { name: 'Investor deck.pdf' }).click();
      const pageRows = page.getByRole('table', { name: /Reading time per page/ }).locator('tbody tr');
      await expect(pageRows.count()).resolves.toBeGreaterThanOrEqual(1);
      await check(page, 'document');

      // An API key, shown once, that reads the same figures.
      await page.goto(`${web}/app/settings/keys`);
      await page.getByLabel('Name').fill('CRM sync');
      await page.getByRole('button', { name: 'Create key' }).click();
      const key = (await page.locator('#shown-once').textContent()) as string;
      expect(key).toMatch(/^dr_live_/);
      await check(page, 'keys');
      const figures = await fetch(`${server.readApi}/v1/deal-rooms/${roomId}/analytics?period=7d`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(((await figures.json()) as { data: Record<string, unknown> }).data).toMatchObject({
        totalViews: 1,
        uniqueViewers: 1,
      });
      await page.goto(`${web}/app/settings/keys`);
      expect(await page.locator('#shown-once').count()).toBe(0);
      expect(await page.locator('body').textContent()).not.toContain(key);

      // A webhook endpoint and its deliveries.
      await page.goto(`${web}/app/settings/webhooks`);
      await page.getByLabel('URL').fill(receiver.url('/dashboard'));
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = (await page.locator('#shown-once').textContent()) as string;
      expect(secret).toMatch(/^whsec_/);
      await check(page, 'webhooks');
      await page.goto(`${web}/app/rooms/${roomId}`);
      await page.getByLabel('Name').fill('Project Atlas <Series B> (final)');
      await page.getByRole('button', { name: 'Save room' }).click();
      await until(() => receiver.to('/dashboard').length > 0, 'a delivery to the new endpoint');
      expect(JSON.parse(receiver.to('/dashboard')[0]?.body ?? '{}').type).toBe('deal_room.updated');
      await page.goto(`${web}/app/settings/webhooks`);
      await page.getByRole('link', { name: receiver.url('/dashboard') }).click();
      await until(async () => {
        await page.reload();
        return (await page.getByRole('cell', { name: 'deal_room.updated' }).count()) > 0;
      }, 'the attempt on the endpoint page');
      await check(page, 'endpoint');
      // The test event: signed with the endpoint's secret, sent at once, its answer on the page.
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText(/Test event delivered: 200 in \d+ ms\./).waitFor();
      const test = receiver.to('/dashboard').find((r) => JSON.parse(r.body).type === 'webhook.test');
      expect(verifyWebhook(test?.body ?? '', test?.headers as Record<string, string>, secret)).toBeTruthy();
      // ...and listed with the endpoint's attempts, naming who sent it.
      await expect(page.getByRole('cell', { name: /^Test event, sent by / }).count()).resolves.toBe(1);

      // The audit log holds each change, with who made it.
      await page.goto(`${web}/app/settings/audit`);
      for (const action of [
        'Room created',
        'Document created',
        'Link created',
        'API key created',
        'Endpoint created',
        'Room updated',
      ]) {
        await expect(
          page.getByRole('cell', { name: action, exact: true }).count(),
          action,
        ).resolves.toBeGreaterThan(0);
      }
      expect(await page.locator('body').textContent()).not.toContain(key);
      await check(page, 'audit');

      // A member, invited from the dashboard: reads, and changes nothing.
      await page.goto(`${web}/app/settings/users`);
      await page.getByLabel('Email').fill('mia@northwind.example');
      await page.getByLabel('Role', { exact: true }).selectOption('member');
      await page.getByRole('button', { name: 'Invite' }).click();
      const memberAddress = (await page.locator('#shown-once').textContent()) as string;
      // The address is under APP_URL, the public base; this server listens on a port of its own.
      expect(memberAddress).toMatch(/^http:\/\/localhost:3000\/invite\//);
      await check(page, 'users');
      const member = await person();
      await member.page.goto(memberAddress.replace('http://localhost:3000', web));
      await member.page.getByLabel('Password', { exact: true }).fill('member password 1');
      await member.page.getByLabel('Confirm password').fill('member password 1');
      await member.page.getByRole('button', { name: 'Set password' }).click();
      await member.page.waitForURL(`${web}/app/rooms`);
      for (const path of [
        '/app/rooms',
        `/app/rooms/${roomId}`,
        `/app/rooms/${roomId}/documents`,
        `/app/rooms/${roomId}/links`,
        '/app/settings/keys',
        '/app/settings/webhooks',
      ]) {
        await member.page.goto(`${web}${path}`);
        for (const name of [
          'Create room',
          'Upload',
          'Create link',
          'Create key',
          'Revoke',
          'Add endpoint',
          'Replay',
          'Save room',
          'Publish',
          'Unpublish',
        ]) {
          expect(
            await member.page.getByRole('button', { name, exact: true }).count(),
            `${name} on ${path}`,
          ).toBe(0);
        }
      }
      const memberToken = await member.page.locator('input[name="_csrf"]').first().getAttribute('value');
      for (const path of [
        '/app/rooms',
        `/app/rooms/${roomId}/delete`,
        '/app/settings/keys',
        '/app/settings/users',
      ]) {
        const refused = await member.context.request.post(`${web}${path}`, {
          form: { _csrf: memberToken as string, name: 'x', email: 'x@y.z', role: 'owner' },
        });
        expect(refused.status(), path).toBe(403);
      }
      expect((await member.context.request.get(`${web}/app/settings/users`)).status()).toBe(403);
      await member.context.close();

      await page.goto(`${web}/app/account`);
      await check(page, 'account');
      await page.goto(`${web}/app/notifications`);
      await expect(page.getByText('This service is not set up to send email').count()).resolves.toBe(1);
      expect(await page.locator('body').innerText()).not.toMatch(SETTING_NAME);
      await page.goto(`${web}/app/rooms/${roomId}/links`);
      await check(page, 'links');

      // A form without its token is refused; a tampered session cookie is signed out.
      const forged = await context.request.post(`${web}/app/rooms`, { form: { name: 'Forged' } });
      expect(forged.status()).toBe(403);
      const cookies = await context.cookies();
      const session = cookies.find((c) => c.name === 'dr_user');
      expect(session).toBeDefined();
      await context.addCookies([
        {
          ...(session as NonNullable<typeof session>),
          value: `${session?.value.slice(0, -1)}${session?.value.endsWith('A') ? 'B' : 'A'}`,
        },
      ]);
      await page.goto(`${web}/app/rooms`);
      expect(page.url()).toMatch(/\/login\?next=/);
      await check(page, 'sign-in');
      // And signing in again works, then signing out ends the session.
      await page.getByLabel('Email').fill('olivia@northwind.example');
      await page.getByLabel('Password').fill(OWNER_PASSWORD);
      await Promise.all([
        page.waitForURL(`${web}/app/rooms`),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      await check(page, 'rooms');
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL(/\/login$/);
      await page.goto(`${web}/app/rooms`);
      expect(page.url()).toMatch(/\/login/);
      await context.close();
      expect(problems).toEqual([]);
    });

    it('fits a phone: every page at 390 px wide, nothing wider than the screen, no serious accessibility violation', async () => {
      const address = await invite('phone@northwind.example', 'owner');
      const { context, page } = await person(PHONE);
      const look = async (name: string) => {
        await check(page, `${name}-phone`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), name).toBeLessThanOrEqual(
          PHONE.width,
        );
      };
      // A click only starts its navigation: look at the next page once it has replaced this one.
      const follow = async (link: Locator) => {
        const before = page.url();
        await Promise.all([page.waitForURL((url) => url.href !== before), link.click()]);
      };
      await page.goto(`${web}/login`);
      await look('sign-in');
      await page.goto(address);
      await look('invite');
      await page.getByLabel('Password', { exact: true }).fill(OWNER_PASSWORD);
      await page.getByLabel('Confirm password').fill(OWNER_PASSWORD);
      await Promise.all([
        page.waitForURL(`${web}/app/rooms`),
        page.getByRole('button', { name: 'Set password' }).click(),
      ]);
      await look('rooms');
      await follow(page.getByRole('link', { name: /Project Atlas/ }).first());
      await look('overview');
      await follow(page.getByRole('link', { name: 'Documents' }));
      await look('documents');
      await follow(page.getByRole('link', { name: 'Investor deck.pdf' }));
      await look('document');
      await page.goBack();
      await follow(page.getByRole('link', { name: 'Links' }));
      await look('links');
      await follow(page.locator('tbody th a').first());
      await look('link');
      await page.goBack();
      await follow(page.getByRole('link', { name: 'Viewers' }));
      await look('viewers');
      await follow(page.locator('tbody th a').first());
      await look('viewer');
      for (const [name, path] of [
        ['keys', '/app/settings/keys'],
        ['webhooks', '/app/settings/webhooks'],
        ['users', '/app/settings/users'],
        ['audit', '/app/settings/audit'],
        ['account', '/app/account'],
      ] as const) {
        await page.goto(`${web}${path}`);
        await look(name);
      }
      await page.goto(`${web}/app/settings/webhooks`);
      await follow(page.locator('tbody th a').first());
      await look('endpoint');
      await context.close();
      expect(problems).toEqual([]);
    });
  },
);

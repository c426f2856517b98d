import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCaptured } from '../cli/commands.ts';
import { loadConfig } from '../config.ts';
import { systemClock } from '../core/clock.ts';
import { numberedPdf } from '../seed/pdf.ts';
import type { RunningServer } from '../server.ts';
import { axeViolations, hasChromium, LAPTOP, PHONE, screenshot } from '../testing/browser.ts';
import { type BrowserService, newPerson, serviceWithBrowser } from '../testing/browser-service.ts';
import { type Receiver, startReceiver, until } from '../testing/receiver.ts';
import { startSmtpServer } from '../testing/smtp.ts';
import { storeKinds } from '../testing/stores.ts';

const ADMIN_TOKEN = 'gate-browser-admin-token';
const OWNER_PASSWORD = 'correct horse battery';
const AGREEMENT =
  'The documents in this room are confidential.\n\nYou will not share them outside your firm.';
const kind = storeKinds().at(-1) ?? 'embedded';

describe.runIf(hasChromium)(
  `the gate in headless Chromium: codes by mail, lists, an agreement, the team's own visits (${kind} store)`,
  { timeout: 150_000 },
  () => {
    let server: RunningServer;
    let receiver: Receiver;
    let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
    let service: BrowserService;
    let web: string;
    let key: string;
    let teamId: string;
    let roomId: string;
    let shortId: string;
    let deckId: string;
    const problems: string[] = [];

    const admin = (method: string, path: string, body?: unknown) => service.admin(method, path, body);
    const read = (path: string): Promise<any> => service.read(key, path);

    beforeAll(async () => {
      receiver = await startReceiver();
      smtp = await startSmtpServer();
      service = await serviceWithBrowser(kind, ADMIN_TOKEN, {
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        SMTP_URL: smtp.url,
      });
      ({ server, web } = service);
      teamId = (await admin('POST', '/teams', { name: 'Northwind Capital' })).data.id as string;
      key = (await admin('POST', `/teams/${teamId}/keys`, { name: 'CRM' })).data.key as string;
      await admin('POST', `/teams/${teamId}/webhook-endpoints`, { url: receiver.url('/hooks') });
      roomId = (await admin('POST', `/teams/${teamId}/deal-rooms`, { name: 'Project Atlas' })).data
        .id as string;
      deckId = (await admin('POST', `/deal-rooms/${roomId}/documents`, { name: 'Deck', status: 'published' }))
        .data.id as string;
      await admin('PUT', `/documents/${deckId}/file`, await numberedPdf(2));
      shortId = (
        await admin('POST', `/deal-rooms/${roomId}/links`, {
          name: 'Buyers',
          verifyEmail: true,
          allowList: ['@buyer.example', '@northwind.example'],
          blockList: ['@rival.example'],
          agreement: AGREEMENT,
        })
      ).data.shortId as string;
    });
    afterAll(async () => {
      await service?.close();
      await receiver?.close();
      await smtp?.stop();
    });

    const person = (viewport = LAPTOP) => newPerson(service, problems, { viewport });

    async function look(page: Page, name: string) {
      expect(await axeViolations(page), name).toEqual([]);
      await screenshot(page, `gate-${name}`);
    }

    const mailsTo = (email: string) =>
      smtp.received.filter((m) => m.to.some((to) => to.toLowerCase() === email.toLowerCase()));

    /** Through the gate's steps as a person would: email, the code from the mail, the agreement. */
    async function passGate(page: Page, email: string, name: string, shots?: string) {
      await page.goto(`${web}/v/${shortId}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Name').fill(name);
      const before = mailsTo(email).length;
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByLabel('Verification code').waitFor();
      if (shots) await look(page, `${shots}-code`);
      await until(() => mailsTo(email).length > before, `the code mailed to ${email}`);
      const code = /\b(\d{6})\b/.exec(mailsTo(email).at(-1)?.raw ?? '')?.[1] ?? '';
      await page.getByLabel('Verification code').fill(code === '000000' ? '111111' : '000000');
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('alert').waitFor();
      expect(await page.getByRole('alert').innerText()).toBe('Incorrect code');
      await page.getByLabel('Verification code').fill(code);
      await page.getByRole('button', { name: 'Verify' }).click();
      await page.getByRole('button', { name: 'I agree' }).waitFor();
      expect(await page.getByRole('region', { name: 'Agreement' }).innerText()).toContain('confidential');
      if (shots) await look(page, `${shots}-agreement`);
      await page.getByRole('button', { name: 'I agree' }).click();
      await page.getByRole('heading', { level: 1, name: 'Project Atlas' }).waitFor();
    }

    it('opens only after a mailed code and the agreement; refuses a blocked domain; the timeline and CSV say so', async () => {
      const { context, page } = await person();
      await passGate(page, 'cfo@buyer.example', 'Carla', 'laptop');
      await page.getByRole('link', { name: 'Deck' }).click();
      await page.locator('[data-page="1"] img').waitFor();
      await context.close();

      // A phone, the same steps.
      const phone = await person(PHONE);
      await passGate(phone.page, 'analyst@buyer.example', 'Ari', 'phone');
      await phone.context.close();

      // A blocked domain: the page says so without naming the lists.
      const rival = await person();
      await rival.page.goto(`${web}/v/${shortId}`);
      await rival.page.getByLabel('Email').fill('spy@rival.example');
      await rival.page.getByRole('button', { name: 'Continue' }).click();
      await rival.page.getByLabel('Verification code').waitFor();
      await until(() => mailsTo('spy@rival.example').length > 0, 'the code mailed to the rival');
      const code = /\b(\d{6})\b/.exec(mailsTo('spy@rival.example').at(-1)?.raw ?? '')?.[1] ?? '';
      await rival.page.getByLabel('Verification code').fill(code);
      const [refused] = await Promise.all([
        rival.page.waitForResponse((r) => r.url().endsWith('/verify')),
        rival.page.getByRole('button', { name: 'Verify' }).click(),
      ]);
      expect(refused.status()).toBe(403);
      await rival.page.getByRole('heading', { name: 'This email cannot open this link' }).waitFor();
      expect(await rival.page.content()).not.toContain('buyer.example');
      await look(rival.page, 'refused');
      await rival.context.close();

      // The team's owner reads through the same link: internal.
      const invited = await runCaptured(
        { config: loadConfig({ APP_URL: web }), db: server.db, clock: systemClock },
        ['users', 'create', '--team', teamId, '--email', 'olivia@northwind.example', '--role', 'owner'],
      );
      expect(invited.code, invited.stderr.join('\n')).toBe(0);
      const owner = await person();
      await passGate(owner.page, 'Olivia@Northwind.example', 'Olivia');
      await owner.page.getByRole('link', { name: 'Deck' }).click();
      await owner.page.locator('[data-page="1"] img').waitFor();

      // The read API and the webhooks know the two buyers only.
      await until(
        async () => (await read(`/deal-rooms/${roomId}/viewers`)).length === 1,
        'the viewer in /v1',
      );
      const viewers = await read(`/deal-rooms/${roomId}/viewers`);
      expect(viewers.map((v: { email: string }) => v.email)).toEqual(['cfo@buyer.example']);
      const analytics = await read(`/deal-rooms/${roomId}/analytics?period=all`);
      expect(analytics).toMatchObject({ totalViews: 1, uniqueViewers: 1 });
      await until(() => receiver.to('/hooks').some((r) => r.body.includes('view.started')), 'view.started');
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const hooks = receiver.to('/hooks').map((r) => r.body.toLowerCase());
      expect(hooks.filter((body) => body.includes('"view.started"'))).toHaveLength(1);
      expect(hooks.some((body) => body.includes('northwind.example'))).toBe(false);

      // The dashboard: the owner signs in with the invitation; verified, agreed, refused, internal.
      await owner.page.goto(invited.stdout[0] as string);
      await owner.page.getByLabel('Password', { exact: true }).fill(OWNER_PASSWORD);
      await owner.page.getByLabel('Confirm password').fill(OWNER_PASSWORD);
      await Promise.all([
        owner.page.waitForURL(`${web}/app/rooms`),
        owner.page.getByRole('button', { name: 'Set password' }).click(),
      ]);
      await owner.page.goto(`${web}/app/rooms/${roomId}/viewers`);
      await owner.page.getByRole('link', { name: 'cfo@buyer.example' }).waitFor();
      const ownRow = owner.page.getByRole('row', { name: /olivia@northwind\.example/i });
      await ownRow.getByText('Internal').waitFor();
      await look(owner.page, 'viewers');
      await owner.page.getByRole('link', { name: 'cfo@buyer.example' }).click();
      await owner.page.getByText('Email verified', { exact: true }).waitFor();
      expect(await owner.page.getByRole('table').innerText()).toContain(
        'Accepted the agreement (email verified)',
      );
      const csv = await owner.page.evaluate(
        async (href) => (await fetch(href)).text(),
        `${owner.page.url()}/timeline.csv`,
      );
      expect(csv).toMatch(/agreed,true/);
      expect(csv).toMatch(/visit,true/);
      await owner.page.goto(`${web}/app/rooms/${roomId}`);
      expect(await owner.page.locator('#live').innerText()).toContain('spy@rival.example was refused');
      await owner.context.close();
      expect(problems).toEqual([]);
    });
  },
);

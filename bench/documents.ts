/**
 * Protected documents at volume: a 40-page, 22 MB deck (each page a photo-sized image, as a
 * CIM's charts and photos are) rendered to page images (pages per second); its first page on
 * screen in Chromium on loopback and at 10 Mbit/s with 80 ms of latency; page images from 50
 * connections on the busy room, without and with a watermark; and the service while a
 * hostile file (1 GiB inflated from 1 MB) is uploaded: its memory, and how long /healthz
 * takes to answer on the web listener meanwhile.
 */
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { numberedPdf } from '../src/seed/pdf.ts';
import { hasChromium, launchChromium, pageOneShown } from '../src/testing/browser.ts';
import { inflationBomb } from '../src/testing/hostile-files.ts';
import { loadWithCookies, rssMiB, sampleRss } from './lib.ts';

export interface DocumentsReport {
  deck: { pages: number; megabytes: number };
  render: { seconds: number; pagesPerSecond: number };
  firstPage: { loopbackMs: number; throttledMs: number } | undefined;
  pageImage: ImageLoad;
  pageImageMarked: ImageLoad;
  hostile: {
    status: number;
    seconds: number;
    healthzMaxMs: number;
    rssBeforeMiB: number;
    rssPeakMiB: number;
  };
}

interface ImageLoad {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  bytes: number;
}

/** A deck of `pages` pages, each a full-page image of noise (incompressible, as photos are). */
async function heavyDeck(pages: number, targetBytes: number): Promise<Uint8Array> {
  const canvas = createCanvas(1100, 850);
  const context = canvas.getContext('2d');
  const pixels = context.createImageData(canvas.width, canvas.height);
  for (let i = 0; i < pixels.data.length; i++) pixels.data[i] = (i * 2654435761) >>> 24;
  context.putImageData(pixels, 0, 0);
  let quality = 90;
  let jpeg = await canvas.encode('jpeg', quality);
  while (jpeg.length * pages > targetBytes && quality > 30) {
    quality -= 10;
    jpeg = await canvas.encode('jpeg', quality);
  }
  const pdf = await PDFDocument.create();
  for (let n = 0; n < pages; n++) {
    const image = await pdf.embedJpg(jpeg);
    const page = pdf.addPage([792, 612]);
    page.drawImage(image, { x: 0, y: 0, width: 792, height: 612 });
  }
  return pdf.save();
}

export async function benchDocuments(options: {
  manageBase: string;
  webBase: string;
  adminToken: string;
  busyRoomId: string;
  pid: number;
  seconds: number;
  connections: number;
}): Promise<DocumentsReport> {
  const { manageBase, webBase, adminToken, busyRoomId, pid, seconds, connections } = options;
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${manageBase}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        'content-type': body instanceof Uint8Array ? 'application/pdf' : 'application/json',
      },
      body: body instanceof Uint8Array ? Buffer.from(body) : body ? JSON.stringify(body) : undefined,
    });
    return {
      status: answer.status,
      body: (await answer.json().catch(() => ({}))) as { data: Record<string, string> },
    };
  };
  const document = async (name: string) =>
    (await admin('POST', `/deal-rooms/${busyRoomId}/documents`, { name, status: 'published' })).body.data
      .id as string;

  const deckBytes = await heavyDeck(40, 22 * 1024 * 1024);
  const deck = await document('CIM.pdf');
  // A text deck beside it, the kind of page most documents have, for the load on page images.
  const teaser = await document('Teaser.pdf');
  const link = async (watermark: boolean) =>
    (
      await admin('POST', `/deal-rooms/${busyRoomId}/links`, {
        name: `Bench ${watermark ? 'marked' : 'plain'}`,
        watermark,
        documentIds: [deck, teaser],
      })
    ).body.data.shortId as string;
  const plain = await link(false);
  const marked = await link(true);

  // Rendering: from the upload's answer to the 40th page's image, as a recipient's viewer sees it.
  const uploaded = Date.now();
  const put = await admin('PUT', `/documents/${deck}/file`, deckBytes);
  if (put.status !== 200) throw new Error(`the deck's upload answered ${put.status}`);
  const cookie = await opened(webBase, plain);
  const imageOf = (shortId: string, page: number, width: number) =>
    `${webBase}/v/${shortId}/d/${deck}/pages/${page}?w=${width}`;
  for (;;) {
    const last = await fetch(imageOf(plain, 40, 1600), { headers: { cookie } });
    await last.arrayBuffer();
    if (last.status === 200) break;
    if (Date.now() - uploaded > 600_000) throw new Error('the deck was not rendered in 10 minutes');
    await new Promise((r) => setTimeout(r, 200));
  }
  const renderSeconds = (Date.now() - uploaded) / 1000;
  const teaserPut = await admin('PUT', `/documents/${teaser}/file`, await numberedPdf(12));
  if (teaserPut.status !== 200) throw new Error(`the teaser's upload answered ${teaserPut.status}`);
  const teaserPage = `${webBase}/v/${plain}/d/${teaser}/pages/12?w=1600`;
  const ready = async () => {
    const answer = await fetch(teaserPage, { headers: { cookie } });
    await answer.arrayBuffer();
    return answer.status === 200;
  };
  while (!(await ready())) await new Promise((r) => setTimeout(r, 200));

  const firstPage = hasChromium ? await firstPageTimes(`${webBase}/v/${plain}/d/${deck}`) : undefined;

  const imageLoad = async (shortId: string): Promise<ImageLoad> => {
    const sessions = await Promise.all(Array.from({ length: connections }, () => opened(webBase, shortId)));
    const url = `${webBase}/v/${shortId}/d/${teaser}/pages/1?w=1600`;
    const bytes = (await (await fetch(url, { headers: { cookie: sessions[0] as string } })).arrayBuffer())
      .byteLength;
    return {
      ...(await loadWithCookies(url, sessions, { seconds, connections })),
      bytes,
    };
  };
  const pageImage = await imageLoad(plain);
  const pageImageMarked = await imageLoad(marked);

  // A hostile upload, while /healthz on the web listener is asked every 100 ms (the file is
  // made first: compressing a GiB would stall this process's own asking).
  const bomb = await document('Bomb.pdf');
  const bombBytes = inflationBomb(1024);
  const rssBeforeMiB = rssMiB(pid);
  const peak = sampleRss(pid);
  let healthzMaxMs = 0;
  let asking = true;
  const asker = (async () => {
    while (asking) {
      const at = Date.now();
      await fetch(`${webBase}/healthz`).then((r) => r.text());
      healthzMaxMs = Math.max(healthzMaxMs, Date.now() - at);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const hostileStarted = Date.now();
  const hostile = await admin('PUT', `/documents/${bomb}/file`, bombBytes);
  const hostileSeconds = (Date.now() - hostileStarted) / 1000;
  // Its pages are drawn in the background, if it was accepted: a while more of watching.
  await new Promise((r) => setTimeout(r, 5000));
  asking = false;
  await asker;
  return {
    deck: { pages: 40, megabytes: deckBytes.length / 1024 / 1024 },
    render: { seconds: renderSeconds, pagesPerSecond: 40 / renderSeconds },
    firstPage,
    pageImage,
    pageImageMarked,
    hostile: {
      status: hostile.status,
      seconds: hostileSeconds,
      healthzMaxMs,
      rssBeforeMiB,
      rssPeakMiB: peak(),
    },
  };
}

/** The cookies of a browser that opened a link without a gate. */
async function opened(webBase: string, shortId: string): Promise<string> {
  const answer = await fetch(`${webBase}/v/${shortId}`);
  await answer.text();
  return answer.headers
    .getSetCookie()
    .map((line) => line.split(';')[0])
    .join('; ');
}

/** From navigation to page 1's image drawn, in a fresh browser, on loopback and on a slow line. */
async function firstPageTimes(viewer: string): Promise<{ loopbackMs: number; throttledMs: number }> {
  const browser = await launchChromium();
  try {
    const time = async (slow: boolean) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      await page.goto(viewer.replace(/\/d\/.*/, ''));
      if (slow) {
        const cdp = await context.newCDPSession(page);
        await cdp.send('Network.emulateNetworkConditions', {
          offline: false,
          latency: 80,
          downloadThroughput: (10 * 1024 * 1024) / 8,
          uploadThroughput: (10 * 1024 * 1024) / 8,
        });
      }
      const started = Date.now();
      await page.goto(viewer, { waitUntil: 'commit' });
      await pageOneShown(page, 60_000);
      const ms = Date.now() - started;
      await context.close();
      return ms;
    };
    return { loopbackMs: await time(false), throttledMs: await time(true) };
  } finally {
    await browser.close();
  }
}

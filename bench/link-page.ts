/**
 * The link page under load on the busy room: the room page and the document viewer from 50
 * connections holding a session that passed the gate, each against a bare route answering
 * the same bytes just before; then reading reports from 500 simulated readers, every one on a
 * view of its own opened through the viewer, checking that each second sent is counted once.
 */
import { Agent, request } from 'node:http';
import { numberedPdf } from '../src/seed/pdf.ts';
import { type LoadResult, load, loadWithCookies } from './lib.ts';

export interface LinkPageReport {
  roomPage: LoadResult & { bare: LoadResult; bytes: number };
  viewerPage: LoadResult & { bare: LoadResult; bytes: number };
  reports: {
    readers: number;
    sent: number;
    perSecond: number;
    p99: number;
    failed: number;
    /** Reports not counted, by answer (a 503 is the service shedding load; the seconds go again). */
    refusals: Record<string, number>;
    secondsSent: number;
    /** What the service may count: per view, at most the time since it opened plus 10 s. */
    secondsAllowed: number;
    secondsCounted: number;
  };
}

/** The session cookies a browser holds once it opened the link (and passed its gate). */
async function passGate(web: string, shortId: string, email: string): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      if (at > 0) jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const gate = await fetch(`${web}/v/${shortId}`, { headers: { cookie: cookie() } });
  keep(gate);
  const token = /name="token" value="([^"]+)"/.exec(await gate.text())?.[1];
  if (token) {
    const passed = await fetch(`${web}/v/${shortId}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, email, name: 'Bench reader' }).toString(),
    });
    if (passed.status !== 303) throw new Error(`the gate answered ${passed.status}`);
    keep(passed);
  }
  return cookie();
}

export async function benchLinkPage(options: {
  readBase: string;
  manageBase: string;
  webBase: string;
  bareBase: string;
  adminToken: string;
  key: string;
  busyRoomId: string;
  seconds: number;
  connections: number;
  readers: number;
}): Promise<LinkPageReport> {
  const { readBase, manageBase, webBase, bareBase, adminToken, key, busyRoomId, seconds, connections } =
    options;
  const list = async (what: string) => {
    const res = await fetch(`${readBase}/v1/deal-rooms/${busyRoomId}/${what}?per_page=100`, {
      headers: { 'x-api-key': key },
    });
    return ((await res.json()) as { data: { id: string; url?: string; isActive?: boolean }[] }).data;
  };
  const link = (await list('links')).find((l) => l.isActive && l.url);
  const document = (await list('documents'))[0];
  if (!link?.url || !document) throw new Error('the busy room has no open link or document');
  const shortId = new URL(link.url).pathname.split('/').at(-1) as string;
  // A real 12-page PDF behind the document, as a team uploads one.
  const put = await fetch(`${manageBase}/documents/${document.id}/file`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/pdf' },
    body: Buffer.from(await numberedPdf(12)),
  });
  if (put.status !== 200) throw new Error(`the upload answered ${put.status}`);

  // One session per connection, each a reader of its own (the gate asks some links for an email).
  const cookies = await Promise.all(
    Array.from({ length: connections }, (_, n) =>
      passGate(webBase, shortId, `bench-reader-${n}@bench.example`),
    ),
  );
  const page = async (path: string, cookie = cookies[0] as string) => {
    const answer = await fetch(`${webBase}${path}`, { headers: { cookie } });
    const body = await answer.text();
    if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
    return body;
  };
  const measure = async (path: string) => {
    const bytes = Buffer.byteLength(await page(path));
    const bare = await load(`${bareBase}/bytes/${bytes}`, { seconds, connections });
    const result = await loadWithCookies(`${webBase}${path}`, cookies, { seconds, connections });
    return {
      ...result,
      bare,
      bytes,
    };
  };
  const roomPage = await measure(`/v/${shortId}`);
  // Each viewer page opened starts a view (the same batched writer as the management API).
  const viewerPage = await measure(`/v/${shortId}/d/${document.id}`);

  // 500 readers, each on a view of its own, each sending its next report (a second of page
  // time) as soon as the last one is answered: the service's capacity, not a paced load (a
  // real page reports every 10 s, so this is the traffic of far more readers than 500).
  // Opened as people arrive, as many at once as there are connections (more at once are
  // answered 503 with Retry-After by design: the bench is not measuring that here).
  const views: { url: string; token: string; cookie: string; openedAt: number }[] = [];
  for (let first = 0; first < options.readers; first += connections) {
    const batch = Array.from({ length: Math.min(connections, options.readers - first) }, (_, i) => first + i);
    views.push(
      ...(await Promise.all(
        batch.map(async (n) => {
          const html = await page(`/v/${shortId}/d/${document.id}`, cookies[n % cookies.length]);
          const url = /data-report="([^"]+)"/.exec(html)?.[1];
          const token = /data-token="([^"]+)"/.exec(html)?.[1];
          if (!url || !token) throw new Error('the viewer page has no report address');
          return { url, token, cookie: cookies[n % cookies.length] as string, openedAt: Date.now() };
        }),
      )),
    );
  }
  const before = await durations(manageBase, adminToken, document.id);
  // node:http with kept-alive connections, one per reader as browsers hold: the client's own
  // cost (it shares the cores with the service) stays small beside what it measures.
  const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const post = (url: string, cookie: string, body: string) =>
    new Promise<number>((resolve, reject) => {
      const sent = request(
        url,
        {
          method: 'POST',
          agent,
          headers: { cookie, 'content-type': 'text/plain', 'content-length': Buffer.byteLength(body) },
        },
        (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 0));
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  const latencies: number[] = [];
  let failed = 0;
  // Answers within the measured seconds (those still in flight at the end come after them).
  let answeredInTime = 0;
  const refusals: Record<string, number> = {};
  let secondsSent = 0;
  let secondsAllowed = 0;
  const until = Date.now() + seconds * 1000;
  const started = Date.now();
  await Promise.all(
    views.map(async (view, n) => {
      let beat = 0;
      // As the viewer does: seconds a busy service did not count go again with the next report.
      let pending: Record<number, number> = {};
      let sentHere = 0;
      let lastAnswer = view.openedAt;
      while (Date.now() < until) {
        const pageNumber = ((n + beat++) % 12) + 1;
        pending[pageNumber] = (pending[pageNumber] ?? 0) + 1;
        const sentAt = Date.now();
        const status = await post(
          `${webBase}${view.url}`,
          view.cookie,
          JSON.stringify({ token: view.token, pages: pending, final: false }),
        ).catch(() => undefined);
        latencies.push(Date.now() - sentAt);
        if (status === 204) {
          if (Date.now() <= until) answeredInTime++;
          sentHere += Object.values(pending).reduce((a, b) => a + b, 0);
          lastAnswer = Date.now();
          pending = {};
        } else {
          failed++;
          const answer = String(status ?? 'no answer');
          refusals[answer] = (refusals[answer] ?? 0) + 1;
        }
      }
      secondsSent += sentHere;
      // A view's active time never exceeds the time since it started plus 10 s (contract.md section 7).
      secondsAllowed += Math.min(sentHere, Math.floor((lastAnswer - view.openedAt) / 1000) + 10);
    }),
  );
  agent.destroy();
  const after = await durations(manageBase, adminToken, document.id);
  latencies.sort((a, b) => a - b);
  return {
    roomPage,
    viewerPage,
    reports: {
      readers: views.length,
      sent: latencies.length,
      perSecond: answeredInTime / ((until - started) / 1000),
      refusals,
      p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      failed,
      secondsSent,
      secondsAllowed,
      secondsCounted: after - before,
    },
  };
}

/** The active seconds kept for a document, all pages together (its page figures). */
async function durations(manageBase: string, adminToken: string, documentId: string): Promise<number> {
  const answer = await fetch(`${manageBase}/documents/${documentId}/pages?period=all`, {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  const { data } = (await answer.json()) as { data: { pages: { activeSeconds: number }[] } };
  return data.pages.reduce((sum, p) => sum + p.activeSeconds, 0);
}

/**
 * The team is told, at volume, through the real `dealroom serve` and its worker, with a real
 * SMTP server process on loopback:
 * - 1,000 visits to a room one user follows (VISIT_EMAIL_DELAY_SECONDS=0, posted as fast as
 *   the management API takes them): every visit's email received, none twice, and the time
 *   from a visit's commit to its email;
 * - the live feed: sequential view starts, each timed from its commit (the management API's
 *   answer) to the room's event stream delivering it to a signed-in dashboard session.
 */
import type { startSmtpServer } from '../src/testing/smtp.ts';
import { signIn } from './dashboard.ts';

export interface NotificationReport {
  visits: number;
  emails: number;
  /** Visits whose email came more than once. */
  twice: number;
  /** From the first visit posted to the last email received. */
  seconds: number;
  perSecond: number;
  commitToEmail: { p50: number; p99: number };
  feed: { samples: number; p50: number; p99: number; max: number };
}

const FEED_SAMPLES = 100;

const percentile = (sorted: readonly number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;

export async function benchNotifications(options: {
  env: NodeJS.ProcessEnv;
  webBase: string;
  manageBase: string;
  adminToken: string;
  teamId: string;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  visits: number;
}): Promise<NotificationReport> {
  const { webBase, manageBase, smtp } = options;
  const headers = { authorization: `Bearer ${options.adminToken}`, 'content-type': 'application/json' };
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(`${manageBase}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { data: { id: string } };
  };
  const email = 'told@bench.example';
  const cookie = await signIn(options.env, webBase, options.teamId, email);
  const room = (await admin(`/teams/${options.teamId}/deal-rooms`, { name: 'Told room' })).data.id;
  const documentId = (await admin(`/deal-rooms/${room}/documents`, { name: 'CIM', status: 'published' })).data
    .id;
  const link = (await admin(`/deal-rooms/${room}/links`, { name: 'Buyers' })).data.id;
  const account = await (await fetch(`${webBase}/app/account`, { headers: { cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(account)?.[1] ?? '';
  const followed = await fetch(`${webBase}/app/rooms/${room}/follow`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf }).toString(),
  });
  if (followed.status !== 303) throw new Error(`follow answered ${followed.status}`);

  // The feed first, while the queue is idle.
  const controller = new AbortController();
  const stream = await fetch(`${webBase}/app/rooms/${room}/live`, {
    headers: { cookie },
    signal: controller.signal,
  });
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  const arrivals: number[] = [];
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          if (buffer.slice(0, end).includes('event: activity')) arrivals.push(Date.now());
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Aborted.
    }
  })();
  const waitFor = async (count: number, ms: number) => {
    const by = Date.now() + ms;
    while (arrivals.length < count && Date.now() < by) await new Promise((r) => setTimeout(r, 2));
    return arrivals.length >= count;
  };
  await waitFor(1, 5000);
  const feed: number[] = [];
  for (let i = 0; i < FEED_SAMPLES; i++) {
    const before = arrivals.length;
    await admin(`/links/${link}/views`, { documentId, viewer: { email: `feed${i}@buyer.example` } });
    const committed = Date.now();
    if (await waitFor(before + 1, 5000)) feed.push((arrivals[before] as number) - committed);
    // Past the feed's 150 ms gathering of a burst, so each sample is one commit.
    await new Promise((r) => setTimeout(r, 200));
  }
  controller.abort();

  // 1,000 visits, ten at a time.
  const committedAt = new Map<string, number>();
  const received = smtp.received.length;
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < options.visits) {
        const viewer = `visit${next++}@buyer.example`;
        await admin(`/links/${link}/visits`, { viewer: { email: viewer } });
        committedAt.set(viewer, Date.now());
      }
    }),
  );
  const by = Date.now() + 180_000;
  while (smtp.received.length - received < options.visits && Date.now() < by) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const mails = smtp.received.slice(received).filter((m) => m.to.includes(email));
  const seen = new Map<string, number>();
  const latencies: number[] = [];
  for (const mail of mails) {
    const viewer = /Subject: (visit\d+@buyer\.example)/.exec(mail.raw)?.[1];
    if (!viewer) continue;
    seen.set(viewer, (seen.get(viewer) ?? 0) + 1);
    if (seen.get(viewer) === 1) latencies.push(mail.at - (committedAt.get(viewer) ?? mail.at));
  }
  const last = Math.max(...mails.map((m) => m.at));
  latencies.sort((a, b) => a - b);
  feed.sort((a, b) => a - b);
  const seconds = (last - started) / 1000;
  return {
    visits: options.visits,
    emails: seen.size,
    twice: [...seen.values()].filter((n) => n > 1).length,
    seconds,
    perSecond: seen.size / seconds,
    commitToEmail: { p50: percentile(latencies, 50), p99: percentile(latencies, 99) },
    feed: {
      samples: feed.length,
      p50: percentile(feed, 50),
      p99: percentile(feed, 99),
      max: feed.at(-1) ?? Number.NaN,
    },
  };
}

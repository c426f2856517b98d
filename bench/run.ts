/**
 * `npm run bench`: the read API at the size busy teams reach, on PostgreSQL and on the
 * embedded store, each figure also a ratio to a bare Fastify route measured in the same run
 * (the machine is noisy: only ratios compare across runs). It generates the data set
 * (bench/generate.ts), imports it with the real `dealroom import`, starts the real
 * `dealroom serve`, and measures every endpoint with autocannon, then view starts through the
 * management API while reads run (bench/writes.ts); then writes BENCHMARKS.md.
 *
 *   npm run bench -- [--views N] [--stores postgres,embedded] [--seconds S] [--connections C]
 *                    [--read-rounds R] [--read-round-seconds S]
 *
 * PostgreSQL: BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); a database
 * of its own is created and dropped. Loopback only; every run is bounded in time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { COMMAND, commandEnv } from '../src/testing/process.ts';
import { startSmtpServer } from '../src/testing/smtp.ts';
import { benchDashboard, type DashboardPageTime } from './dashboard.ts';
import { benchDocuments, type DocumentsReport } from './documents.ts';
import { BENCH_TEAM_ID, type GeneratedShape, generate } from './generate.ts';
import { importFloorSeconds } from './import-floor.ts';
import { dealroom, eventLoopMaxMs, type LoadResult, load, rssMiB, sampleRss, startListening } from './lib.ts';
import { benchLinkPage, type LinkPageReport } from './link-page.ts';
import { benchNotifications, type NotificationReport } from './notifications.ts';
import { benchWebhooks, type WebhookReport } from './webhooks.ts';
import { benchWrites, type WriteReport } from './writes.ts';

const { values } = parseArgs({
  options: {
    views: { type: 'string', default: '1000000' },
    stores: { type: 'string', default: 'postgres,embedded' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    deliveries: { type: 'string', default: '100000' },
    readers: { type: 'string', default: '500' },
    out: { type: 'string', default: 'BENCHMARKS.md' },
    // Each read is measured in rounds (bare, one-query, the service), its median round reported.
    'read-rounds': { type: 'string', default: '3' },
    'read-round-seconds': { type: 'string', default: '2' },
  },
});
const VIEWS = Number(values.views);
const SECONDS = Number(values.seconds);
const READ_ROUNDS = Number(values['read-rounds']);
const READ_ROUND_SECONDS = Number(values['read-round-seconds']);
const CONNECTIONS = Number(values.connections);
const DELIVERIES = Number(values.deliveries);
const READERS = Number(values.readers);
const PG_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Row extends LoadResult {
  name: string;
  bytes: number;
  bare: LoadResult;
  /** The service's app factory with one prepared primary-key query (PostgreSQL only). */
  oneQuery?: LoadResult | undefined;
  loopMaxMs: number;
}

/** One round of a read: the bare route, the one-query route and the service, one after another. */
interface Round {
  bare: LoadResult;
  oneQuery?: LoadResult | undefined;
  result: LoadResult;
  loopMaxMs: number;
}

/** A round's ratio: the service to the one-query route where there is one, else to the bare route. */
const roundRatio = (round: Round) => round.result.rps / (round.oneQuery ?? round.bare).rps;

/**
 * A read's row from its rounds: the round whose `roundRatio` is the median, so one burst of
 * another tenant's load in one round does not decide it; the highest p99, the longest stall
 * and every failure of them all.
 */
function medianRow(name: string, bytes: number, rounds: Round[]): Row {
  const median = [...rounds].sort((a, b) => roundRatio(a) - roundRatio(b))[
    Math.floor(rounds.length / 2)
  ] as Round;
  return {
    name,
    bytes,
    bare: median.bare,
    oneQuery: median.oneQuery,
    ...median.result,
    p99: Math.max(...rounds.map((r) => r.result.p99)),
    non2xx: rounds.reduce((n, r) => n + r.result.non2xx, 0),
    errors: rounds.reduce((n, r) => n + r.result.errors, 0),
    loopMaxMs: Math.max(...rounds.map((r) => r.loopMaxMs)),
  };
}

interface StoreReport {
  store: string;
  importSeconds: number;
  importPeakMiB: number;
  /** The same event rows written by COPY alone (import-floor.ts). */
  importFloorSeconds?: number;
  /** Just after start and the first reads. */
  idleRssMiB: number;
  /** After 20 s without a request. */
  settledRssMiB: number;
  loadRssMiB: number;
  rows: Row[];
  writes: WriteReport;
  linkPage: LinkPageReport;
  documents: DocumentsReport;
  dashboard: DashboardPageTime[];
  webhooks: WebhookReport;
  notifications: NotificationReport;
}

async function withDatabase<T>(work: (env: NodeJS.ProcessEnv) => Promise<T>, store: string, dir: string) {
  if (store === 'embedded') {
    return work({ ...process.env, DATABASE_URL: '', DATA_DIR: join(dir, 'embedded') });
  }
  const name = `dealroom_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  try {
    return await work({ ...process.env, DATABASE_URL: url.toString() });
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function benchStore(
  store: string,
  file: string,
  shape: GeneratedShape,
  dir: string,
): Promise<StoreReport> {
  return withDatabase(
    async (baseEnv) => {
      const env = {
        ...baseEnv,
        LOG_LEVEL: 'warn',
        // Budgets far above what the run sends: the limiter still counts every request.
        RATE_LIMIT_PER_KEY: '999999999',
        RATE_LIMIT_PER_TEAM: '999999999',
        // The load comes from one address and a few cookies: the link pages' limits likewise.
        LINK_PAGES_PER_MINUTE: '999999999',
        LINK_VIEWS_PER_MINUTE: '999999999',
        LINK_REPORTS_PER_MINUTE: '999999999',
        LINK_NEW_VISITORS_PER_HOUR: '999999999',
      };
      await dealroom(['migrate'], env);
      const started = Date.now();
      const imported = await dealroom(['import', file], env);
      const importSeconds = (Date.now() - started) / 1000;
      const importPeakMiB = Number(/peak memory (\d+) MiB/.exec(imported.stdout)?.[1] ?? Number.NaN);
      console.log(`${store}: ${imported.stdout.trim()}`);
      const floorSeconds = await importFloorSeconds(baseEnv, dir);
      console.log(
        `${store}: import floor (the event rows by COPY alone) ${floorSeconds.toFixed(1)} s; the import took ${(importSeconds / floorSeconds).toFixed(1)} × it`,
      );
      const key = (
        await dealroom(['keys', 'create', '--team', BENCH_TEAM_ID, '--name', 'bench'], env)
      ).stdout.trim();

      const adminToken = 'bench-admin-token-0123456789';
      const smtp = await startSmtpServer();
      const server = await startListening(
        // The `dealroom` command as installed (its launcher), run by this node.
        [COMMAND, 'serve', '--port', '0'],
        // The worker runs in the server; the bench's receiver is on loopback.
        commandEnv({
          ...env,
          ADMIN_TOKEN: adminToken,
          MANAGEMENT_PORT: '0',
          WEB_PORT: '0',
          WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
          // Visit emails through a real SMTP server process, sent as soon as the visit is in.
          SMTP_URL: smtp.url,
          VISIT_EMAIL_DELAY_SECONDS: '0',
        }),
        /Analytics API listening on (http:\/\/[^\s]+)/,
      );
      const manage = {
        base: /Management API listening on (http:\/\/\S+)/.exec(server.output())?.[1] ?? '',
        token: adminToken,
      };
      const webBase =
        /Link pages and the dashboard listening on (http:\/\/\S+)/.exec(server.output())?.[1] ?? '';
      const bare = await startListening(
        [process.execPath, '--import', 'tsx', join(import.meta.dirname, 'bare.ts')],
        process.env,
      );
      const oneQuery = baseEnv.DATABASE_URL
        ? await startListening(
            [process.execPath, '--import', 'tsx', join(import.meta.dirname, 'one-query.ts')],
            { ...process.env, DATABASE_URL: baseEnv.DATABASE_URL },
          )
        : undefined;
      const pid = server.child.pid as number;
      try {
        const headers = { 'x-api-key': key };
        const get = async (path: string) => {
          const res = await fetch(`${server.base}${path}`, { headers });
          const body = await res.text();
          if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${body}`);
          return { bytes: Buffer.byteLength(body), etag: res.headers.get('etag') ?? '', body };
        };
        const busy = `/v1/deal-rooms/${shape.busyRoomId}`;
        const small = `/v1/deal-rooms/${shape.smallRoomId}`;
        const viewers = JSON.parse((await get(`${busy}/viewers?per_page=1`)).body).meta.pagination.total;
        const deepPage = Math.max(1, Math.ceil(viewers / 20) - 2);
        const scenarios: [string, string, Record<string, string>?][] = [
          ['rooms list', '/v1/deal-rooms'],
          ['one room (busy)', busy],
          ['documents (busy)', `${busy}/documents`],
          ['links (busy)', `${busy}/links`],
          ['viewers page 1 (busy)', `${busy}/viewers`],
          [`viewers page ${deepPage} (busy)`, `${busy}/viewers?page=${deepPage}`],
          ...(['7d', '30d', '90d', 'all'] as const).flatMap((p): [string, string][] => [
            [
              `analytics ${p} (busy, ${Math.round(shape.views * 0.6).toLocaleString('en-US')} views)`,
              `${busy}/analytics?period=${p}`,
            ],
            [`analytics ${p} (10,000 views)`, `${small}/analytics?period=${p}`],
          ]),
        ];
        const idleRssMiB = rssMiB(pid);
        // Idle as a running service is: no request for 20 s, by when V8 has given back what
        // starting took (its memory reducer begins 8 s after the last full collection).
        await sleep(20_000);
        const settledRssMiB = rssMiB(pid);
        const stopSampling = sampleRss(pid);
        const rows: Row[] = [];
        for (const [name, path] of scenarios) {
          const { bytes } = await get(path);
          const rounds: Round[] = [];
          for (let i = 0; i < READ_ROUNDS; i++) {
            const baseline = await load(`${bare.base}/bytes/${bytes}`, {
              seconds: READ_ROUND_SECONDS,
              connections: CONNECTIONS,
            });
            const ceiling = oneQuery
              ? await load(`${oneQuery.base}/one-query/${bytes}?id=${shape.busyRoomId}`, {
                  seconds: READ_ROUND_SECONDS,
                  connections: CONNECTIONS,
                })
              : undefined;
            await eventLoopMaxMs(manage); // resets the server's maximum
            const result = await load(`${server.base}${path}`, {
              seconds: READ_ROUND_SECONDS,
              connections: CONNECTIONS,
              headers,
            });
            rounds.push({
              bare: baseline,
              oneQuery: ceiling,
              result,
              loopMaxMs: await eventLoopMaxMs(manage),
            });
          }
          const row = medianRow(name, bytes, rounds);
          rows.push(row);
          console.log(
            `${store}: ${name}: ${row.rps.toFixed(0)} req/s (${(row.rps / row.bare.rps).toFixed(2)}x bare${row.oneQuery ? `, ${(row.rps / row.oneQuery.rps).toFixed(2)}x one-query` : ''}; rounds ${rounds.map((r) => roundRatio(r).toFixed(2)).join(', ')}), p99 ${row.p99} ms`,
          );
        }
        const { etag } = await get(`${busy}/analytics?period=all`);
        const baseline = await load(`${bare.base}/bytes/0`, { seconds: SECONDS, connections: CONNECTIONS });
        await eventLoopMaxMs(manage);
        const matched = await load(`${server.base}${busy}/analytics?period=all`, {
          seconds: SECONDS,
          connections: CONNECTIONS,
          headers: { ...headers, 'if-none-match': etag },
          expect: 304,
        });
        rows.push({
          name: 'If-None-Match matched (busy, all)',
          bytes: 0,
          bare: baseline,
          loopMaxMs: await eventLoopMaxMs(manage),
          ...matched,
        });
        const loadRssMiB = stopSampling();
        const writes = await benchWrites({
          readBase: server.base,
          manageBase: manage.base,
          bareBase: bare.base,
          adminToken,
          key,
          busyRoomId: shape.busyRoomId,
          seconds: SECONDS,
          connections: CONNECTIONS,
        });
        console.log(
          `${store}: view starts ${writes.viewStarts.rps.toFixed(0)}/s (${(writes.viewStarts.rps / writes.bare.rps).toFixed(2)}x bare POSTs, p99 ${writes.viewStarts.p99} ms, ${writes.viewStarts.non2xx + writes.viewStarts.errors} failed); one room read ${writes.readDuringWrites.rps.toFixed(0)} req/s during, ${writes.readAlone.rps.toFixed(0)} alone`,
        );
        const linkPage = await benchLinkPage({
          readBase: server.base,
          manageBase: manage.base,
          webBase,
          bareBase: bare.base,
          adminToken,
          key,
          busyRoomId: shape.busyRoomId,
          seconds: SECONDS,
          connections: CONNECTIONS,
          readers: READERS,
        });
        const lp = linkPage.reports;
        console.log(
          `${store}: link page: room page ${linkPage.roomPage.rps.toFixed(0)} req/s p99 ${linkPage.roomPage.p99} ms, viewer ${linkPage.viewerPage.rps.toFixed(0)} req/s p99 ${linkPage.viewerPage.p99} ms; ${lp.readers} readers sent ${lp.perSecond.toFixed(0)} reports/s (p99 ${lp.p99} ms, ${lp.failed} failed), ${lp.secondsCounted} of ${lp.secondsSent} seconds counted`,
        );
        const documents = await benchDocuments({
          manageBase: manage.base,
          webBase,
          adminToken,
          busyRoomId: shape.busyRoomId,
          pid,
          seconds: SECONDS,
          connections: CONNECTIONS,
        });
        console.log(
          `${store}: documents: 40 pages rendered in ${documents.render.seconds.toFixed(1)} s; first page ${documents.firstPage?.loopbackMs ?? '-'} ms (loopback), ${documents.firstPage?.throttledMs ?? '-'} ms (10 Mbit/s); page images ${documents.pageImage.rps.toFixed(0)} req/s p99 ${documents.pageImage.p99} ms, watermarked ${documents.pageImageMarked.rps.toFixed(0)} req/s p99 ${documents.pageImageMarked.p99} ms; hostile upload ${documents.hostile.status}, /healthz max ${documents.hostile.healthzMaxMs} ms`,
        );
        const dashboard = await benchDashboard({
          env,
          webBase,
          readBase: server.base,
          key,
          teamId: BENCH_TEAM_ID,
          busyRoomId: shape.busyRoomId,
        });
        for (const d of dashboard)
          console.log(`${store}: dashboard ${d.page}: p50 ${d.p50} ms, max ${d.max} ms`);
        const receiver = await startListening(
          [process.execPath, '--import', 'tsx', join(import.meta.dirname, 'receiver.ts')],
          process.env,
        );
        let webhooks: WebhookReport;
        try {
          webhooks = await benchWebhooks({
            manageBase: manage.base,
            adminToken,
            receiverBase: receiver.base,
            databaseUrl: baseEnv.DATABASE_URL || undefined,
            backlog: DELIVERIES,
          });
        } finally {
          await receiver.stop();
        }
        const d = webhooks.drain;
        console.log(
          `${store}: webhooks: commit to first attempt p50 ${webhooks.idleLatency.p50} ms, max ${webhooks.idleLatency.max} ms${d ? `; ${d.deliveries} deliveries drained at ${d.perSecond.toFixed(0)}/s (${(d.perSecond / d.bare.rps).toFixed(2)}x bare POSTs), slow endpoint ${d.slowDelivered}/${d.slowQueued}` : ''}`,
        );
        const notifications = await benchNotifications({
          env,
          webBase,
          manageBase: manage.base,
          adminToken,
          teamId: BENCH_TEAM_ID,
          smtp,
          visits: 1000,
        });
        console.log(
          `${store}: notifications: ${notifications.emails}/${notifications.visits} visit emails in ${notifications.seconds.toFixed(1)} s (${notifications.perSecond.toFixed(0)}/s), ${notifications.twice} twice, commit to email p50 ${notifications.commitToEmail.p50} ms p99 ${notifications.commitToEmail.p99} ms; feed commit to browser p50 ${notifications.feed.p50} ms p99 ${notifications.feed.p99} ms`,
        );
        return {
          store,
          importSeconds,
          importPeakMiB,
          importFloorSeconds: floorSeconds,
          idleRssMiB,
          settledRssMiB,
          loadRssMiB,
          rows,
          writes,
          linkPage,
          documents,
          dashboard,
          webhooks,
          notifications,
        };
      } finally {
        await server.stop();
        await bare.stop();
        await oneQuery?.stop();
        await smtp.stop();
      }
    },
    store,
    dir,
  );
}

/** The targets of the real-volume work, each met or missed by how much. */
function targets(shape: GeneratedShape, reports: StoreReport[]): string[] {
  const lines = ['## Targets', '', '| store | target | measured | met |', '|---|---|---|---|'];
  const row = (store: string, target: string, measured: string, met: boolean) =>
    lines.push(`| ${store} | ${target} | ${measured} | ${met ? 'yes' : '**no**'} |`);
  for (const r of reports) {
    const pg = r.store === 'postgres';
    const store = pg ? 'PostgreSQL' : 'embedded';
    const ceilingRows = r.rows.filter((x) => x.oneQuery);
    if (ceilingRows.length > 0) {
      const ratio = (x: Row) => x.rps / (x.oneQuery as LoadResult).rps;
      for (const [label, rows, min] of [
        ['every read but analytics', ceilingRows.filter((x) => !x.name.startsWith('analytics')), 0.8],
        ['analytics, every period', ceilingRows.filter((x) => x.name.startsWith('analytics')), 0.5],
      ] as const) {
        const worst = [...rows].sort((a, b) => ratio(a) - ratio(b))[0];
        if (worst) {
          row(
            store,
            `${label} >= ${min} × the one-query route`,
            `lowest ${ratio(worst).toFixed(2)} (${worst.name})`,
            ratio(worst) >= min,
          );
        }
      }
    } else {
      const minRatio = 0.05;
      const worst = [...r.rows].sort((a, b) => a.rps / a.bare.rps - b.rps / b.bare.rps)[0];
      if (worst) {
        row(
          store,
          `every endpoint >= ${minRatio} × bare`,
          `lowest ${(worst.rps / worst.bare.rps).toFixed(2)} (${worst.name})`,
          worst.rps / worst.bare.rps >= minRatio,
        );
      }
    }
    const slowest = [...r.rows].sort((a, b) => b.p99 - a.p99)[0];
    if (pg && slowest)
      row(store, 'p99 at most 50 ms', `highest ${slowest.p99} ms (${slowest.name})`, slowest.p99 <= 50);
    const w = r.writes;
    const writeFailures = w.viewStarts.non2xx + w.viewStarts.errors;
    if (pg) {
      row(
        store,
        '>= 1,000 view starts/s (50 writers, reads running), no errors',
        `${Math.round(w.viewStarts.rps).toLocaleString('en-US')}/s (${(w.viewStarts.rps / w.bare.rps).toFixed(2)} × bare POSTs), p99 ${w.viewStarts.p99} ms, ${writeFailures} failed`,
        w.viewStarts.rps >= 1000 && writeFailures === 0,
      );
    }
    row(
      store,
      'reads during writes: no errors',
      `one room ${Math.round(w.readDuringWrites.rps).toLocaleString('en-US')} req/s (${(w.readDuringWrites.rps / w.readAlone.rps).toFixed(2)} × alone), p99 ${w.readDuringWrites.p99} ms`,
      w.readDuringWrites.non2xx + w.readDuringWrites.errors === 0,
    );
    const lp = r.linkPage;
    for (const [name, result] of [
      ['link page: the room page', lp.roomPage],
      ['link page: the document viewer (each opening starts a view)', lp.viewerPage],
    ] as const) {
      const failures = result.non2xx + result.errors;
      row(
        store,
        `${name}, ${CONNECTIONS} connections on the busy room: p99 under 50 ms, no errors`,
        `${Math.round(result.rps).toLocaleString('en-US')} req/s (${(result.rps / result.bare.rps).toFixed(2)} × bare), p99 ${result.p99} ms, ${failures} failed`,
        result.p99 < 50 && failures === 0,
      );
    }
    const reports = lp.reports;
    row(
      store,
      `page reports from ${reports.readers} readers: ${pg ? '>= 2,000/s, ' : ''}every second counted once, none past the clock`,
      `${Math.round(reports.perSecond).toLocaleString('en-US')}/s counted, p99 ${reports.p99} ms, ${reports.failed} refused (sent again); ${reports.secondsCounted.toLocaleString('en-US')} seconds counted of ${reports.secondsSent.toLocaleString('en-US')} sent (${reports.secondsAllowed.toLocaleString('en-US')} within the time each view was open + 10 s)`,
      (!pg || reports.perSecond >= 2000) &&
        reports.secondsCounted <= reports.secondsSent &&
        Math.abs(reports.secondsCounted - reports.secondsAllowed) <= reports.readers,
    );
    const docs = r.documents;
    row(
      store,
      'a 40-page, 22 MB deck: first page on screen under 1 s on loopback, under 3 s at 10 Mbit/s + 80 ms',
      docs.firstPage
        ? `${docs.firstPage.loopbackMs} ms on loopback, ${docs.firstPage.throttledMs} ms throttled; all 40 pages rendered in ${docs.render.seconds.toFixed(1)} s (${docs.render.pagesPerSecond.toFixed(1)} pages/s)`
        : 'not measured (no Chromium)',
      docs.firstPage !== undefined && docs.firstPage.loopbackMs < 1000 && docs.firstPage.throttledMs < 3000,
    );
    for (const [name, load, limit] of [
      ['page images, no watermark', docs.pageImage, 50],
      ['page images, watermarked per viewer', docs.pageImageMarked, 100],
    ] as const) {
      row(
        store,
        `${name}, ${CONNECTIONS} connections: p99 under ${limit} ms, no errors`,
        `${Math.round(load.rps).toLocaleString('en-US')} req/s of ${load.bytes} bytes, p99 ${load.p99} ms, ${load.non2xx + load.errors} failed`,
        load.p99 < limit && load.non2xx + load.errors === 0,
      );
    }
    row(
      store,
      'a 1 MB PDF inflating to 1 GiB: refused or drawn, /healthz within 1 s throughout',
      `answered ${docs.hostile.status} in ${docs.hostile.seconds.toFixed(1)} s; /healthz at most ${docs.hostile.healthzMaxMs} ms; RSS ${Math.round(docs.hostile.rssBeforeMiB)} MiB before, ${Math.round(docs.hostile.rssPeakMiB)} MiB at most`,
      docs.hostile.healthzMaxMs < 1000 && [200, 422].includes(docs.hostile.status),
    );
    const slowestPage = [...r.dashboard].sort((a, b) => b.p50 - a.p50)[0];
    if (slowestPage) {
      row(
        store,
        'dashboard: every page under 100 ms of server time (busy room, one request at a time)',
        `slowest ${slowestPage.page}: p50 ${slowestPage.p50} ms, max ${slowestPage.max} ms`,
        slowestPage.p50 < 100,
      );
    }
    const hooks = r.webhooks;
    row(
      store,
      'webhooks: commit to first attempt under 1 s (queue idle)',
      `p50 ${hooks.idleLatency.p50} ms, max ${hooks.idleLatency.max} ms over ${hooks.idleLatency.samples} writes`,
      hooks.idleLatency.max < 1000,
    );
    if (hooks.drain) {
      const d = hooks.drain;
      row(
        store,
        `webhooks: ${d.deliveries.toLocaleString('en-US')} backlog drained at >= 500/s, no failures`,
        `${Math.round(d.perSecond).toLocaleString('en-US')}/s (${(d.perSecond / d.bare.rps).toFixed(2)} × bare POSTs), ${d.failed} failed`,
        d.perSecond >= 500 && d.failed === 0,
      );
      row(
        store,
        'webhooks: a slow endpoint does not hold up the others',
        `the slow endpoint had ${d.slowDelivered} of ${d.slowQueued} delivered when the fast ones were done`,
        d.slowDelivered < d.slowQueued,
      );
    }
    const told = r.notifications;
    row(
      store,
      `notifications: ${told.visits.toLocaleString('en-US')} visits in well under a minute give as many visit emails, none twice`,
      `${told.emails.toLocaleString('en-US')} emails in ${told.seconds.toFixed(1)} s, ${told.twice} twice; commit to email p99 ${told.commitToEmail.p99} ms`,
      told.emails === told.visits && told.twice === 0,
    );
    row(
      store,
      'live feed: commit to the browser under 1 s (p99)',
      `p50 ${told.feed.p50} ms, p99 ${told.feed.p99} ms over ${told.feed.samples} views`,
      told.feed.p99 < 1000 && told.feed.samples > 0,
    );
    const failed = r.rows.reduce((n, x) => n + x.non2xx + x.errors, 0);
    row(store, 'no non-2xx, no errors', String(failed), failed === 0);
    for (const period of ['7d', '30d', '90d', 'all']) {
      const busy = r.rows.find((x) => x.name.startsWith(`analytics ${period} (busy`));
      const small = r.rows.find((x) => x.name.startsWith(`analytics ${period} (10,000`));
      if (busy && small) {
        const slower = small.rps / busy.rps;
        row(
          store,
          `analytics ${period}: busy room within 2× of the 10,000-view room`,
          `${slower.toFixed(2)}× slower`,
          slower <= 2,
        );
      }
    }
    const viewsPerSecond = shape.views / r.importSeconds;
    const importTarget = pg ? 100_000 : 40_000;
    row(
      store,
      `import >= ${importTarget.toLocaleString('en-US')} views/s`,
      `${Math.round(viewsPerSecond).toLocaleString('en-US')} views/s${r.importFloorSeconds ? ` (the floor, COPY of the event rows alone: ${Math.round(shape.views / r.importFloorSeconds).toLocaleString('en-US')} views/s)` : ''}`,
      viewsPerSecond >= importTarget,
    );
    if (pg) {
      row(store, 'importer RSS under 300 MB', `${r.importPeakMiB} MiB`, r.importPeakMiB * 1.048576 < 300);
      row(
        store,
        'server RSS under 250 MB under load',
        `${r.loadRssMiB.toFixed(0)} MiB`,
        r.loadRssMiB * 1.048576 < 250,
      );
    } else {
      const stall = Math.max(...r.rows.map((x) => x.loopMaxMs));
      row(store, 'no event-loop stall over 50 ms', `longest ${stall.toFixed(0)} ms`, stall <= 50);
      row(
        store,
        'server RSS at idle (20 s without a request) under 250 MB',
        `${r.settledRssMiB.toFixed(0)} MiB (${r.idleRssMiB.toFixed(0)} MiB just after start)`,
        r.settledRssMiB * 1.048576 < 250,
      );
    }
  }
  lines.push('');
  return lines;
}

function report(shape: GeneratedShape, reports: StoreReport[], generatedSeconds: number): string {
  const lines = [
    '# Benchmarks',
    '',
    'Written by `npm run bench`. Every throughput is also given as a ratio to a bare Fastify route',
    'that answers a fixed body of the same size, measured just before it in the same run, and on',
    "PostgreSQL to the one-query route (the service's own app factory making one prepared",
    'primary-key query on the same database before answering the same size, bench/one-query.ts):',
    'the machine is shared and noisy, so only ratios compare across runs.',
    '',
    `- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load generator, server and database on the same cores.`,
    `- Data set (bench/generate.ts, deterministic): ${shape.views.toLocaleString('en-US')} views, ${Math.round(shape.views * 1.1).toLocaleString('en-US')} visits, ${Math.round(shape.views / 20).toLocaleString('en-US')} downloads, 200 rooms; the busy room holds 60% of the views from ${shape.busyRoomViewers.toLocaleString('en-US')} viewers over 30 links and 40 documents; the small room 10,000 views (10 documents, 5 links). Generated in ${generatedSeconds.toFixed(0)} s.`,
    `- Load: ${CONNECTIONS} connections, ${SECONDS} s per scenario after a 1 s warm-up; each read of \`/v1\` in ${READ_ROUNDS} rounds of ${READ_ROUND_SECONDS} s (each after a 1 s warm-up) of the bare route, the one-query route and the service one after another, the round with the median ratio reported (with the highest p99 and every failure of all rounds).`,
    '- Reproduce: `npm run bench` (add `-- --views N` for another size).',
    '',
  ];
  for (const r of reports) {
    lines.push(`## ${r.store === 'postgres' ? 'PostgreSQL' : 'Embedded store'}`, '');
    lines.push(
      `- Import: ${r.importSeconds.toFixed(1)} s, ${Math.round(shape.views / r.importSeconds).toLocaleString('en-US')} views/s; importer peak RSS ${r.importPeakMiB} MiB.${r.importFloorSeconds ? ` Its floor, the same event rows written again by one COPY per table into a clone of the imported store (bench/import-floor.ts): ${r.importFloorSeconds.toFixed(1)} s, ${Math.round(shape.views / r.importFloorSeconds).toLocaleString('en-US')} views/s; the import took ${(r.importSeconds / r.importFloorSeconds).toFixed(2)} × the floor's time.` : ''}`,
      `- Server RSS: ${r.idleRssMiB.toFixed(0)} MiB just after start and the first reads, ${r.settledRssMiB.toFixed(0)} MiB after 20 s without a request, ${r.loadRssMiB.toFixed(0)} MiB at most under load.`,
      '',
      '| request | body bytes | req/s | × bare | × one-query | one-query req/s | p50 ms | p99 ms | non-2xx | max event-loop delay ms |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const row of r.rows) {
      const q = row.oneQuery;
      lines.push(
        `| ${row.name} | ${row.bytes} | ${row.rps.toFixed(0)} | ${(row.rps / row.bare.rps).toFixed(2)} | ${q ? (row.rps / q.rps).toFixed(2) : ''} | ${q ? q.rps.toFixed(0) : ''} | ${row.p50} | ${row.p99} | ${row.non2xx + row.errors} | ${row.loopMaxMs.toFixed(0)} |`,
      );
    }
    const w = r.writes;
    lines.push(
      '',
      `Writes: view starts (\`POST /links/{id}/views\` on the busy room; a quarter new viewers, the rest returning) from ${CONNECTIONS} writers, while ${CONNECTIONS} readers fetch the busy room:`,
      '',
      '| load | req/s | × bare | p50 ms | p99 ms | failed |',
      '|---|---:|---:|---:|---:|---:|',
      `| view starts | ${w.viewStarts.rps.toFixed(0)} | ${(w.viewStarts.rps / w.bare.rps).toFixed(2)} | ${w.viewStarts.p50} | ${w.viewStarts.p99} | ${w.viewStarts.non2xx + w.viewStarts.errors} |`,
      `| bare POST route, same sizes, same writers, just before | ${w.bare.rps.toFixed(0)} | 1.00 | ${w.bare.p50} | ${w.bare.p99} | ${w.bare.non2xx + w.bare.errors} |`,
      `| one room (busy), during the writes | ${w.readDuringWrites.rps.toFixed(0)} | | ${w.readDuringWrites.p50} | ${w.readDuringWrites.p99} | ${w.readDuringWrites.non2xx + w.readDuringWrites.errors} |`,
      `| one room (busy), alone just before | ${w.readAlone.rps.toFixed(0)} | | ${w.readAlone.p50} | ${w.readAlone.p99} | ${w.readAlone.non2xx + w.readAlone.errors} |`,
    );
    const lp = r.linkPage;
    lines.push(
      '',
      `The link page on the busy room, from ${CONNECTIONS} connections each holding a session that passed the gate; then reading reports (one second of page time each) from ${lp.reports.readers} readers, each on a view of its own and sending its next report as soon as the last is answered:`,
      '',
      '| load | body bytes | req/s | × bare | p50 ms | p99 ms | failed |',
      '|---|---:|---:|---:|---:|---:|---:|',
      `| room page \`GET /v/{shortId}\` | ${lp.roomPage.bytes} | ${lp.roomPage.rps.toFixed(0)} | ${(lp.roomPage.rps / lp.roomPage.bare.rps).toFixed(2)} | ${lp.roomPage.p50} | ${lp.roomPage.p99} | ${lp.roomPage.non2xx + lp.roomPage.errors} |`,
      `| document viewer \`GET /v/{shortId}/d/{id}\` (starts a view) | ${lp.viewerPage.bytes} | ${lp.viewerPage.rps.toFixed(0)} | ${(lp.viewerPage.rps / lp.viewerPage.bare.rps).toFixed(2)} | ${lp.viewerPage.p50} | ${lp.viewerPage.p99} | ${lp.viewerPage.non2xx + lp.viewerPage.errors} |`,
      `| reading reports | | ${lp.reports.perSecond.toFixed(0)} | | | ${lp.reports.p99} | ${lp.reports.failed} |`,
      '',
      `Reports answered 204: ${lp.reports.perSecond.toFixed(0)} per second over the measured seconds, ${lp.reports.sent.toLocaleString('en-US')} sent in all; not counted, by answer: ${JSON.stringify(lp.reports.refusals)} (their seconds went again with the next report). Seconds of reading counted by the service's answers: ${lp.reports.secondsSent.toLocaleString('en-US')}; in the page figures: ${lp.reports.secondsCounted.toLocaleString('en-US')}.`,
    );
    lines.push(
      '',
      "The dashboard, signed in as an owner of the busy room's team, each page fetched 20 times one after another:",
      '',
      '| page | body bytes | p50 ms | max ms |',
      '|---|---:|---:|---:|',
      ...r.dashboard.map((d) => `| ${d.page} | ${d.bytes} | ${d.p50} | ${d.max} |`),
    );
    const hooks = r.webhooks;
    lines.push(
      '',
      `Webhooks (the worker inside \`dealroom serve\`, a receiver process on loopback): commit to first attempt with the queue idle, p50 ${hooks.idleLatency.p50} ms, max ${hooks.idleLatency.max} ms over ${hooks.idleLatency.samples} sequential writes.`,
    );
    if (hooks.drain) {
      const d = hooks.drain;
      lines.push(
        '',
        `A backlog of ${d.deliveries.toLocaleString('en-US')} deliveries over ${5} endpoints, committed at once, beside ${d.slowQueued} for an endpoint that answers in 2 s: drained in ${d.seconds.toFixed(1)} s, **${Math.round(d.perSecond).toLocaleString('en-US')} deliveries/s**; a bare client POSTing the same size of body to the same receiver with 40 connections: ${Math.round(d.bare.rps).toLocaleString('en-US')}/s (ratio ${(d.perSecond / d.bare.rps).toFixed(2)}). The slow endpoint had ${d.slowDelivered} of ${d.slowQueued} delivered by then (8 at a time, 2 s each). Failed attempts: ${d.failed}.`,
      );
    }
    const told = r.notifications;
    lines.push(
      '',
      `Notifications (the worker inside \`dealroom serve\`, a real SMTP server process on loopback, \`VISIT_EMAIL_DELAY_SECONDS=0\`): ${told.visits.toLocaleString('en-US')} visits posted ten at a time to a room one user follows gave ${told.emails.toLocaleString('en-US')} visit emails in ${told.seconds.toFixed(1)} s (${told.perSecond.toFixed(0)}/s), ${told.twice} sent twice; commit to email p50 ${told.commitToEmail.p50} ms, p99 ${told.commitToEmail.p99} ms. The live feed (a dashboard session's event stream on the room): commit to delivery p50 ${told.feed.p50} ms, p99 ${told.feed.p99} ms, max ${told.feed.max} ms over ${told.feed.samples} sequential views (the feed gathers a burst for 150 ms).`,
    );
    lines.push('');
  }
  lines.push(...targets(shape, reports));
  const analysis = join(import.meta.dirname, 'analysis.md');
  if (existsSync(analysis)) lines.push(readFileSync(analysis, 'utf8'));
  return lines.join('\n');
}

const dir = mkdtempSync(join(tmpdir(), 'dealroom-bench-'));
try {
  const file = join(dir, 'data.ndjson');
  const started = Date.now();
  const shape = await generate(file, VIEWS);
  const generatedSeconds = (Date.now() - started) / 1000;
  console.log(`generated ${VIEWS} views in ${generatedSeconds.toFixed(0)} s`);
  const reports: StoreReport[] = [];
  for (const store of values.stores.split(',')) reports.push(await benchStore(store, file, shape, dir));
  writeFileSync(values.out, `${report(shape, reports, generatedSeconds)}\n`);
  writeFileSync(values.out.replace(/\.md$/, '.json'), `${JSON.stringify({ shape, reports }, null, 2)}\n`);
  console.log(`wrote ${values.out}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

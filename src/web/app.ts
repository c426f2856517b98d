import { createReadStream, existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { DEFAULT_LINK_PAGE_LIMITS } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { ApiError } from '../core/errors.ts';
import { html } from '../core/html.ts';
import type { Metrics } from '../core/metrics.ts';
import { DashboardError } from '../dashboard/errors.ts';
import { parseForm } from '../dashboard/forms.ts';
import { dashboardPage, publicPage } from '../dashboard/layout.ts';
import { LiveActivity } from '../dashboard/live.ts';
import { dashboardRoutes } from '../dashboard/routes.ts';
import type { Database } from '../db/database.ts';
import { WEBHOOK_USER_AGENT, WebhookSender } from '../delivery/sender.ts';
import { DEFAULT_FILE_MAX_BYTES } from '../documents/files.ts';
import { createServer, type LoggerOption } from '../http/server.ts';
import { linkRefusal, PageError } from '../link-page/errors.ts';
import { keptLinks } from '../link-page/kept-links.ts';
import { createLinkPageLimiter, type LinkPageLimiter } from '../link-page/limits.ts';
import { serviceSecret } from '../link-page/repo.ts';
import { type LinkPageDeps, linkPageRoutes } from '../link-page/routes.ts';
import { Signer } from '../link-page/session.ts';
import { messagePage } from '../link-page/views.ts';
import type { Mailer } from '../mail/mailer.ts';
import { type FileWork, sharedFileWork } from '../rendering/pool.ts';
import type { TypedFastify } from '../routing/types.ts';
import { createReadingWriter, type ReportReading } from '../tracking/reading.ts';
import type { StartView } from '../tracking/view-starts.ts';
import { VISITOR, type WriteContexts } from '../write/context.ts';

export interface WebDeps {
  db: Database;
  clock: Clock;
  appUrl: string;
  logger: LoggerOption;
  metrics: Metrics;
  startView: StartView;
  /** WEBHOOK_ALLOW_PRIVATE_URLS, for endpoints added in the dashboard. */
  allowPrivateUrls?: boolean | undefined;
  /** DASHBOARD_IDLE_HOURS, in ms (12 hours when absent). */
  sessionIdleMs?: number | undefined;
  /** FILE_MAX_BYTES, for uploads in the dashboard. */
  fileMaxBytes?: number | undefined;
  /** The process's file threads (server.ts); the shared ones when absent. */
  files?: FileWork | undefined;
  /** The link pages' limits (server.ts, shared through Redis when set); the defaults in this process when absent. */
  linkLimiter?: LinkPageLimiter | undefined;
  /** Mails the dashboard's invitations (SMTP_URL). */
  mailer?: Mailer | undefined;
  /** The process's write contexts, made once at the composition root (server.ts). */
  writeContext: WriteContexts;
  /** How reading reports are written (server.ts makes the process's one); a writer of its own when absent. */
  reportReading?: ReportReading | undefined;
  /** Tells the process's renderer that a viewer waits for a version's pages (server.ts). */
  wantPages?: ((versionId: string) => void) | undefined;
}

/** What every page and file may use: its own origin only, no inline script, never in a frame. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob: data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PUBLIC_DIR = fileURLToPath(new URL('../../public/', import.meta.url));
const CHART_DIR = dirname(createRequire(import.meta.url).resolve('chart.js'));
/** The assets the pages load, each from a file of this package or Chart.js's. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'link.css': { file: join(PUBLIC_DIR, 'link.css'), type: 'text/css; charset=utf-8' },
  'viewer.js': { file: join(PUBLIC_DIR, 'viewer.js'), type: 'text/javascript; charset=utf-8' },
  'icon.svg': { file: join(PUBLIC_DIR, 'icon.svg'), type: 'image/svg+xml' },
  'dashboard.css': { file: join(PUBLIC_DIR, 'dashboard.css'), type: 'text/css; charset=utf-8' },
  'dashboard.js': { file: join(PUBLIC_DIR, 'dashboard.js'), type: 'text/javascript; charset=utf-8' },
  'chart.umd.min.js': {
    file: join(CHART_DIR, 'chart.umd.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};
const AssetParams = Type.Object({ '*': Type.String() });

/**
 * The web app (contract.md section 7): the public link page. Server-rendered HTML from the
 * same server factory as the two APIs, with its own error pages and a strict CSP.
 */
export async function buildWebApp(deps: WebDeps): Promise<TypedFastify> {
  // Without its assets every page would be unstyled and its viewer dead (the CSP allows no
  // inline script): a copy of the service that lacks them does not start.
  const missing = Object.values(ASSETS).filter((asset) => !existsSync(asset.file));
  if (missing.length > 0) {
    throw new Error(
      `the web app's assets are missing (${missing.map((asset) => asset.file).join(', ')}): copy public/ beside dist/, as scripts/release.sh does`,
    );
  }
  const app = createServer({
    api: 'web',
    logger: deps.logger,
    metrics: deps.metrics,
    db: deps.db,
    bodyLimit: 64 * 1024,
    validationMessage: () => 'The request could not be understood',
    renderError: renderPage,
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, text, done) => {
      done(null, parseForm(text as string));
    },
  );
  // Reading reports: JSON, sent as text so that navigator.sendBeacon may send the last one.
  app.addContentTypeParser(
    ['text/plain', 'application/json'],
    { parseAs: 'string' },
    (_request, text, done) => {
      done(null, text);
    },
  );

  const secure = deps.appUrl.startsWith('https://');
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    reply.header('Referrer-Policy', 'no-referrer');
    reply.header('X-Robots-Tag', 'noindex, nofollow');
    reply.header('X-Content-Type-Options', 'nosniff');
    reply.header('X-Frame-Options', 'DENY');
    reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    if (secure) reply.header('Strict-Transport-Security', 'max-age=31536000');
    if (!reply.hasHeader('Cache-Control')) reply.header('Cache-Control', 'private, no-store');
    return payload;
  });

  let signer: Promise<Signer> | undefined;
  let sender: WebhookSender | undefined;
  const { writeContext } = deps;
  const signerOnce = () => {
    signer ??= serviceSecret(deps.db, 'link_session', Signer.freshKey(), deps.clock.now()).then(
      (key) => new Signer(key),
      (err) => {
        signer = undefined;
        throw err;
      },
    );
    return signer;
  };
  const files = deps.files ?? sharedFileWork();
  // Open event streams end as the app closes: they would hold its listener open.
  const live = new LiveActivity(deps.db);
  app.addHook('preClose', async () => live.close());
  const links = keptLinks(deps.db);
  app.addHook('onClose', () => links.close());
  const linkPage: LinkPageDeps = {
    write: writeContext(VISITOR),
    startView: deps.startView,
    reportReading: deps.reportReading ?? createReadingWriter(),
    secureCookies: secure,
    findLink: links.find,
    mailer: deps.mailer,
    files,
    wantPages: deps.wantPages,
    limiter:
      deps.linkLimiter ??
      createLinkPageLimiter(DEFAULT_LINK_PAGE_LIMITS, { logger: app.log, metrics: deps.metrics }),
    signer: signerOnce,
  };
  app.register(async (scope: TypedFastify) => linkPageRoutes(scope, linkPage), { prefix: '/v' });
  dashboardRoutes(app, {
    db: deps.db,
    clock: deps.clock,
    writeContext,
    appUrl: deps.appUrl,
    secureCookies: secure,
    signer: signerOnce,
    fileMaxBytes: deps.fileMaxBytes ?? DEFAULT_FILE_MAX_BYTES,
    sessionIdleMs: deps.sessionIdleMs,
    files,
    mailer: deps.mailer,
    live,
    sender: () => {
      sender ??= new WebhookSender({
        userAgent: WEBHOOK_USER_AGENT,
        allowPrivate: deps.allowPrivateUrls ?? false,
      });
      return sender;
    },
  });

  app.get('/assets/*', { schema: { params: AssetParams } }, async (request, reply) => {
    const name = request.params['*'];
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    const file = asset?.file;
    if (!file) throw linkRefusal('pageNotFound');
    const size = await stat(file).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) throw linkRefusal('pageNotFound');
    return reply
      .type(asset.type)
      .header('Content-Length', String(size))
      .header('Cache-Control', 'public, max-age=3600')
      .send(createReadStream(file));
  });

  app.get('/healthz', async (_request, reply) => reply.type('text/plain; charset=utf-8').send('ok'));
  return app;
}

/** Every error of the web app is a page: what happened, in words, never a stack or a query. */
function renderPage(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error instanceof DashboardError) {
    // A signed-in person keeps the dashboard's navigation, and can go back where they were.
    const user = reply.request.user;
    const body = html`<section class="card"><h1>${error.title}</h1><p>${error.detail}</p>${
      user ? html`<p><button type="button" class="secondary" data-back hidden>Go back</button></p>` : ''
    }<p><a href="/app/rooms">Your rooms</a></p></section>`;
    return reply
      .code(error.status)
      .type('text/html; charset=utf-8')
      .send(
        user
          ? dashboardPage(user, { title: error.title, section: 'rooms', body })
          : publicPage(error.title, body),
      );
  }
  if (error instanceof PageError) {
    return reply
      .code(error.status)
      .type('text/html; charset=utf-8')
      .send(messagePage(error.title, error.detail, error.next));
  }
  const pages: Record<number, [string, string]> = {
    400: ['This request could not be understood', 'Go back and try again.'],
    404: ['Page not found', 'There is nothing at this address.'],
    405: ['Page not found', 'There is nothing at this address.'],
    429: ['Too many requests', 'Wait a moment, then try again.'],
    503: ['Busy right now', 'Please try again in a moment.'],
  };
  const [title, detail] = pages[error.statusCode] ?? [
    'Something went wrong',
    'Please try again in a moment.',
  ];
  const status = error.statusCode === 405 ? 404 : error.statusCode;
  return reply.code(status).type('text/html; charset=utf-8').send(messagePage(title, detail));
}

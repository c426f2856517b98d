import type { FastifyReply, FastifyRequest } from 'fastify';
import { html } from '../core/html.ts';
import { IdParams } from '../core/schemas.ts';
import { clockInZone } from '../core/zones.ts';
import { type ActivityRow, recentActivity } from './activity-repo.ts';
import type { DashboardUser } from './auth.ts';
import { type DashboardDeps, htmlPage, idParam, type Route } from './context.ts';
import { dashboardPage } from './layout.ts';
import type { LiveScope } from './live.ts';
import { roomOf } from './rooms.ts';
import { activityItems } from './views/rooms.ts';

/** The feeds show the last hour, at most this many entries. */
const FEED = { windowMs: 3600_000, limit: 20 };
/** A comment line this often keeps an idle stream open through proxies. */
const KEEPALIVE_MS = 20_000;

/** Entries as the pages' script shows them: the time in the reader's zone. */
function feedJson(rows: readonly ActivityRow[], user: DashboardUser, withRoom: boolean) {
  return {
    data: rows.map((r) => ({
      kind: r.kind,
      at: r.at.toISOString(),
      time: clockInZone(r.at, user.timezone),
      who: r.who,
      what: r.what,
      ...(withRoom ? { room: r.room } : {}),
    })),
  };
}

/**
 * The live feeds: a room's (its overview) and the team's (the Activity page), each as JSON
 * (the fallback poll) and as server-sent events pushed within a moment of each commit of a
 * visit, view, reading report, download or refusal, in any process (LISTEN/NOTIFY).
 */
export const activityRoutes: Route = (app, deps) => {
  /** The team's feed, or one of its rooms'. */
  const feed = (user: DashboardUser, roomId?: string) =>
    recentActivity(
      deps.db,
      { teamId: user.teamId, roomId },
      new Date(deps.clock.now().getTime() - FEED.windowMs),
      FEED.limit,
    );

  app.get('/rooms/:id/activity', { schema: { params: IdParams } }, async (request, reply) => {
    const room = await roomOf(deps, request.user, idParam(request));
    const rows = await feed(request.user, room.id);
    return reply.header('Cache-Control', 'private, no-store').send(feedJson(rows, request.user, false));
  });

  app.get('/rooms/:id/live', { schema: { params: IdParams } }, async (request, reply) => {
    const room = await roomOf(deps, request.user, idParam(request));
    return stream(deps, request, reply, { roomId: room.id }, async () =>
      feedJson(await feed(request.user, room.id), request.user, false),
    );
  });

  app.get('/activity.json', async (request, reply) => {
    const rows = await feed(request.user);
    return reply.header('Cache-Control', 'private, no-store').send(feedJson(rows, request.user, true));
  });

  app.get('/activity/live', async (request, reply) =>
    stream(deps, request, reply, { teamId: request.user.teamId }, async () =>
      feedJson(await feed(request.user), request.user, true),
    ),
  );

  app.get('/activity', async (request, reply) => {
    const { user } = request;
    const rows = await feed(user);
    return htmlPage(
      reply,
      dashboardPage(user, {
        title: 'Activity',
        section: 'activity',
        body: html`<div class="page-head"><div><p class="eyebrow">${user.teamName}</p><h1>Activity</h1></div></div>
<section class="card">
  <h2>The last hour, in every room</h2>
  <p class="hint">Visits, documents opened, downloads and refusals appear here as they happen (times in ${user.timezone}).</p>
  <ul class="activity" id="live" data-source="/app/activity.json" data-stream="/app/activity/live" aria-live="polite">
    ${activityItems(rows, user.timezone, true)}
  </ul>
</section>`,
      }),
    );
  });
};

/** An event stream: the feed now, then again after each commit in the scope, until the page goes. */
async function stream(
  deps: DashboardDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  scope: LiveScope,
  read: () => Promise<unknown>,
): Promise<FastifyReply> {
  reply.hijack();
  const out = reply.raw;
  out.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Accel-Buffering': 'no',
    Connection: 'keep-alive',
  });
  let sending = Promise.resolve();
  const send = () => {
    sending = sending.then(async () => {
      try {
        const data = await read();
        if (!out.destroyed) out.write(`event: activity\ndata: ${JSON.stringify(data)}\n\n`);
      } catch (err) {
        request.log.warn({ err }, 'a live feed could not be read');
      }
    });
  };
  const stop = await deps.live.subscribe(scope, send, () => out.end());
  const keepalive = setInterval(() => out.write(': keepalive\n\n'), KEEPALIVE_MS);
  out.write('retry: 3000\n\n');
  send();
  request.raw.on('close', () => {
    clearInterval(keepalive);
    stop();
  });
  return reply;
}

import type { FastifyRequest } from 'fastify';
import { PERIODS, type Period } from '../analytics/schemas.ts';
import { getAnalytics } from '../analytics/service.ts';
import { type Html, html } from '../core/html.ts';
import { addDays, startOfUtcDay } from '../core/time.ts';
import { createDealRoom, deleteDealRoom, setDealRoomStatus, updateDealRoom } from '../deal-rooms/commands.ts';
import type { DashboardUser } from './auth.ts';
import {
  asUser,
  type DashboardDeps,
  doneOf,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
  withUser,
} from './context.ts';
import { paged, sendCsv } from './csv.ts';
import { DashboardError, notFound } from './errors.ts';
import { formOf } from './forms.ts';
import {
  actionButton,
  count,
  csrfField,
  dashboardPage,
  duration,
  mayChange,
  notice,
  table,
  when,
} from './layout.ts';
import { type RoomRow, recentActivity, roomDays, teamRoom, teamRooms } from './repo.ts';

const PAGE_SIZE = 50;
const PERIOD_DAYS: Record<Exclude<Period, 'all'>, number> = { '7d': 7, '30d': 30, '90d': 90 };

function periodOf(request: FastifyRequest): Period {
  const value = (request.query as Record<string, unknown>).period;
  return PERIODS.includes(value as Period) ? (value as Period) : '30d';
}

/** The rooms list's search and status, as the page and its CSV read them. */
function roomFilter(request: FastifyRequest): { q: string; status: 'active' | 'archived' | 'all' } {
  const query = request.query as Record<string, unknown>;
  const q = typeof query.q === 'string' ? query.q.trim().slice(0, 200) : '';
  const status = query.status === 'archived' || query.status === 'all' ? query.status : 'active';
  return { q, status };
}

function checkName(name: string, what = 'name'): string {
  if (name.length === 0 || name.length > 200) {
    throw new DashboardError(400, 'Check what you entered', `Give a ${what} of 1 to 200 characters.`);
  }
  return name;
}

export async function roomOf(deps: DashboardDeps, user: DashboardUser, roomId: string): Promise<RoomRow> {
  const room = await teamRoom(deps.db, user.teamId, roomId);
  if (!room) throw notFound();
  return room;
}

/** The tabs of a room's pages. */
export function roomTabs(
  room: { id: string },
  current: 'overview' | 'documents' | 'links' | 'viewers',
): Html {
  const tab = (key: typeof current, href: string, label: string) =>
    html`<a href="${href}"${key === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Room">
  ${tab('overview', `/app/rooms/${room.id}`, 'Overview')}
  ${tab('documents', `/app/rooms/${room.id}/documents`, 'Documents')}
  ${tab('links', `/app/rooms/${room.id}/links`, 'Links')}
  ${tab('viewers', `/app/rooms/${room.id}/viewers`, 'Viewers')}
</nav>`;
}

export const roomRoutes: Route = (app, deps) => {
  app.get(
    '/rooms',
    withUser(async (request, reply, user) => {
      const query = request.query as Record<string, unknown>;
      const { q, status } = roomFilter(request);
      const pageNumber = Math.max(1, Math.min(10_000, Number.parseInt(String(query.page ?? '1'), 10) || 1));
      const since = addDays(startOfUtcDay(deps.clock.now()), -29);
      const { rows, total } = await teamRooms(deps.db, user.teamId, {
        q,
        status,
        since,
        limit: PAGE_SIZE,
        offset: (pageNumber - 1) * PAGE_SIZE,
      });
      const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
      const search = (page: number) =>
        `/app/rooms?${new URLSearchParams({ q, status, page: String(page) }).toString()}`;
      const body = html`<div class="page-head">
  <h1>Rooms</h1>
</div>
${notice(doneOf(request))}
${
  mayChange(user)
    ? html`<form method="post" action="/app/rooms" class="card row-form">
  ${csrfField(user)}
  <div class="field grow"><label for="room-name">Name</label><input id="room-name" name="name" required maxlength="200"></div>
  <button type="submit" class="primary">Create room</button>
</form>`
    : ''
}
<form method="get" action="/app/rooms" class="filters" role="search">
  <div class="field grow"><label for="q">Search rooms</label><input id="q" name="q" type="search" value="${q}"></div>
  <div class="field"><label for="status">Status</label>
    <select id="status" name="status">
      ${(['active', 'archived', 'all'] as const).map((s) => html`<option value="${s}"${s === status ? html` selected` : ''}>${s === 'all' ? 'All' : s[0]?.toUpperCase() + s.slice(1)}</option>`)}
    </select></div>
  <button type="submit" class="secondary">Filter</button>
</form>
${table({
  caption: `${count(total)} room${total === 1 ? '' : 's'}`,
  csv: `/app/rooms.csv?${new URLSearchParams({ q, status }).toString()}`,
  head: ['Room', 'Status', 'Views (30 days)', 'Unique viewers (30 days)', 'Last activity'],
  numeric: [2, 3],
  empty: q ? 'No room matches.' : 'No rooms yet. Create one to share documents.',
  rows: rows.map(
    (
      r,
    ) => html`<tr><th scope="row"><a href="/app/rooms/${r.id}">${r.name}</a></th><td><span class="badge ${r.status}">${r.status}</span></td>
<td class="num">${count(r.views_30d)}</td><td class="num">${count(r.viewers_30d)}</td><td>${when(r.last_activity)}</td></tr>`,
  ),
})}
${
  pages > 1
    ? html`<nav class="pager" aria-label="Pages">${pageNumber > 1 ? html`<a href="${search(pageNumber - 1)}">Previous</a>` : ''}<span>Page ${pageNumber} of ${pages}</span>${pageNumber < pages ? html`<a href="${search(pageNumber + 1)}">Next</a>` : ''}</nav>`
    : ''
}`;
      return htmlPage(reply, dashboardPage(user, { title: 'Rooms', section: 'rooms', body }));
    }),
  );

  app.get(
    '/rooms.csv',
    withUser(async (request, reply, user) => {
      const { q, status } = roomFilter(request);
      const since = addDays(startOfUtcDay(deps.clock.now()), -29);
      const rows = paged(
        500,
        async (offset, limit) =>
          (await teamRooms(deps.db, user.teamId, { q, status, since, limit, offset })).rows,
      );
      return sendCsv(
        reply,
        'rooms',
        ['id', 'name', 'status', 'views30d', 'uniqueViewers30d', 'lastActivity', 'createdAt'],
        (async function* () {
          for await (const r of rows) {
            yield [
              r.id,
              r.name,
              r.status,
              r.views_30d,
              r.viewers_30d,
              r.last_activity?.toISOString() ?? '',
              r.created_at.toISOString(),
            ];
          }
        })(),
      );
    }),
  );

  app.post(
    '/rooms',
    withUser(async (request, reply, user) => {
      const name = checkName(formOf(request.body).get('name'));
      const room = await asUser(
        deps,
        user,
        { action: 'deal_room.created', subject: { type: 'deal_room' } },
        (ctx) => createDealRoom(ctx, user.teamId, { name }),
      );
      return redirect(reply, `/app/rooms/${room.id}/documents?done=room-created`);
    }),
  );

  app.get(
    '/rooms/:id',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const period = periodOf(request);
      const now = deps.clock.now();
      const analytics = await getAnalytics(deps.db, user.teamId, room.id, period, now);
      // The same length of time just before, from the daily rollups (not for "all").
      let previous: { views: number; duration: number; downloads: number } | undefined;
      if (period !== 'all') {
        const days = PERIOD_DAYS[period];
        const start = addDays(startOfUtcDay(now), -(days - 1));
        previous = await roomDays(deps.db, room.id, addDays(start, -days), start);
      }
      const activity = await recentActivity(deps.db, room.id, new Date(now.getTime() - 3600_000), 20);
      const avgPrevious = previous && previous.views > 0 ? previous.duration / previous.views : 0;
      const body = html`<div class="page-head">
  <div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div>
  <span class="badge ${room.status}">${room.status}</span>
</div>
${roomTabs(room, 'overview')}
${notice(doneOf(request))}
<nav class="periods" aria-label="Period">
  ${PERIODS.map((p) => html`<a href="/app/rooms/${room.id}?period=${p}"${p === period ? html` aria-current="page"` : ''}>${p === 'all' ? 'All time' : p}</a>`)}
</nav>
<section class="kpis" aria-label="Key figures">
  ${kpi('Views', count(analytics.totalViews), previous && change(analytics.totalViews, previous.views))}
  ${kpi('Unique viewers', count(analytics.uniqueViewers), undefined)}
  ${kpi('Average time', duration(analytics.avgViewDurationSeconds), previous && change(analytics.avgViewDurationSeconds, avgPrevious))}
  ${kpi('Downloads', count(analytics.totalDownloads), previous && change(analytics.totalDownloads, previous.downloads))}
</section>
<section class="card">
  <h2>Views per day</h2>
  <div class="chart-box"><canvas class="chart" role="img" aria-label="Views per day" data-chart="${JSON.stringify(
    {
      type: 'bar',
      label: 'Views',
      labels: analytics.viewsOverTime.map((d) => d.date),
      values: analytics.viewsOverTime.map((d) => d.views),
    },
  )}"></canvas></div>
  <details><summary>Views per day as a table</summary>
  ${table({
    caption: 'Views per day',
    head: ['Date', 'Views'],
    numeric: [1],
    empty: 'No views in this period.',
    rows: analytics.viewsOverTime.map(
      (d) => html`<tr><td>${d.date}</td><td class="num">${count(d.views)}</td></tr>`,
    ),
  })}
  </details>
</section>
<div class="columns">
  <section class="card">
    ${table({
      caption: 'Top documents',
      head: ['Document', 'Views', 'Average time'],
      numeric: [1, 2],
      empty: 'No views in this period.',
      rows: analytics.topDocuments.map(
        (d) =>
          html`<tr><th scope="row"><a href="/app/documents/${d.documentId}">${d.name}</a></th><td class="num">${count(d.views)}</td><td class="num">${duration(d.avgDurationSeconds)}</td></tr>`,
      ),
    })}
  </section>
  <section class="card">
    ${table({
      caption: 'Top links',
      head: ['Link', 'Visits'],
      numeric: [1],
      empty: 'No visits in this period.',
      rows: analytics.topLinks.map(
        (l) =>
          html`<tr><th scope="row"><a href="/app/links/${l.linkId}">${l.name}</a></th><td class="num">${count(l.clicks)}</td></tr>`,
      ),
    })}
  </section>
</div>
<section class="card">
  <h2>Live: the last hour</h2>
  <ul class="activity" id="live" data-source="/app/rooms/${room.id}/activity" aria-live="polite">
    ${activityItems(activity)}
  </ul>
</section>
${
  mayChange(user)
    ? html`<section class="card">
  <h2>Room settings</h2>
  <form method="post" action="/app/rooms/${room.id}" class="stack">
    ${csrfField(user)}
    <div class="field"><label for="room-name">Name</label><input id="room-name" name="name" required maxlength="200" value="${room.name}"></div>
    <div class="field"><label for="room-description">Description</label><textarea id="room-description" name="description" maxlength="2000">${room.description}</textarea></div>
    <button type="submit" class="primary">Save room</button>
  </form>
  <div class="actions">
    ${room.status === 'active' ? actionButton(user, `/app/rooms/${room.id}/archive`, 'Archive room') : actionButton(user, `/app/rooms/${room.id}/restore`, 'Restore room')}
    <a class="button danger" href="/app/rooms/${room.id}/delete">Delete room…</a>
  </div>
</section>`
    : ''
}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: room.name,
          section: 'rooms',
          crumbs: [['/app/rooms', 'Rooms']],
          body,
          scripts: ['/assets/chart.umd.min.js'],
        }),
      );
    }),
  );

  app.get(
    '/rooms/:id/activity',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const rows = await recentActivity(
        deps.db,
        room.id,
        new Date(deps.clock.now().getTime() - 3600_000),
        20,
      );
      return reply.header('Cache-Control', 'private, no-store').send({
        data: rows.map((r) => ({ kind: r.kind, at: r.at.toISOString(), who: r.who, what: r.what })),
      });
    }),
  );

  app.post(
    '/rooms/:id',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      const form = formOf(request.body);
      const name = checkName(form.get('name'));
      const description = form.get('description').slice(0, 2000);
      await asUser(
        deps,
        user,
        {
          action: 'deal_room.updated',
          subject: { type: 'deal_room', id: room.id },
          before: { name: room.name, description: room.description },
        },
        (ctx) => updateDealRoom(ctx, room.id, { name, description }),
      );
      return redirect(reply, `/app/rooms/${room.id}?done=room-saved`);
    }),
  );

  const findRoom = (user: DashboardUser, id: string) => roomOf(deps, user, id);
  for (const [action, status, done] of [
    ['archive', 'archived', 'room-archived'],
    ['restore', 'active', 'room-restored'],
  ] as const) {
    subjectAction(app, deps, `/rooms/:id/${action}`, {
      find: findRoom,
      type: 'deal_room',
      action: `deal_room.${status === 'archived' ? 'archived' : 'restored'}`,
      before: (room) => ({ status: room.status }),
      run: (ctx, room) => setDealRoomStatus(ctx, room.id, status),
      next: (room) => `/app/rooms/${room.id}?done=${done}`,
    });
  }

  app.get(
    '/rooms/:id/delete',
    withUser(async (request, reply, user) => {
      const room = await roomOf(deps, user, idParam(request));
      if (!mayChange(user))
        throw new DashboardError(
          403,
          'You cannot change this',
          'Your role lets you read and export, not change.',
        );
      const body = html`<section class="card danger-zone">
  <h1>Delete ${room.name}?</h1>
  <p>This deletes the room and everything in it, for good:</p>
  <ul>
    <li>${count(room.documents)} document${room.documents === 1 ? '' : 's'} and their files</li>
    <li>${count(room.links)} share link${room.links === 1 ? '' : 's'} (they stop working at once)</li>
    <li>${count(room.views)} view${room.views === 1 ? '' : 's'} from ${count(room.viewers)} viewer${room.viewers === 1 ? '' : 's'}, with every visit and download</li>
  </ul>
  <p>Archive it instead to keep its figures.</p>
  <div class="actions">
    ${actionButton(user, `/app/rooms/${room.id}/delete`, 'Delete room', { danger: true })}
    <a class="button secondary" href="/app/rooms/${room.id}">Cancel</a>
  </div>
</section>`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: `Delete ${room.name}`,
          section: 'rooms',
          crumbs: [
            ['/app/rooms', 'Rooms'],
            [`/app/rooms/${room.id}`, room.name],
          ],
          body,
        }),
      );
    }),
  );

  subjectAction(app, deps, '/rooms/:id/delete', {
    find: findRoom,
    type: 'deal_room',
    action: 'deal_room.deleted',
    before: (room) => ({
      name: room.name,
      status: room.status,
      documents: room.documents,
      links: room.links,
    }),
    after: () => null,
    run: (ctx, room) => deleteDealRoom(ctx, room.id),
    next: () => '/app/rooms?done=room-deleted',
  });
};

function kpi(label: string, value: string, delta: Html | undefined): Html {
  return html`<div class="kpi"><p class="kpi-label">${label}</p><p class="kpi-value">${value}</p>${delta ?? html`<p class="kpi-delta muted">&nbsp;</p>`}</div>`;
}

/** The change against the period before, as a percentage with its direction in words. */
function change(now: number, before: number): Html {
  if (before === 0)
    return html`<p class="kpi-delta muted">${now === 0 ? 'No change' : 'New this period'}</p>`;
  const pct = Math.round(((now - before) / before) * 100);
  const word = pct > 0 ? 'up' : pct < 0 ? 'down' : 'no change';
  return html`<p class="kpi-delta ${pct > 0 ? 'up' : pct < 0 ? 'down' : 'muted'}">${pct === 0 ? 'No change' : `${pct > 0 ? '▲' : '▼'} ${Math.abs(pct)}%`} <span class="visually-hidden">${word}</span> vs previous period</p>`;
}

export function activityItems(rows: { kind: string; at: Date; who: string; what: string }[]): Html {
  if (rows.length === 0) return html`<li class="empty">Nothing in the last hour.</li>`;
  const verb = { view: 'opened', visit: 'visited through', download: 'downloaded' } as Record<string, string>;
  return html`${rows.map((r) => html`<li><time datetime="${r.at.toISOString()}">${r.at.toISOString().slice(11, 16)}</time> <strong>${r.who}</strong> ${verb[r.kind] ?? r.kind} ${r.what}</li>`)}`;
}

import { Type } from '@sinclair/typebox';
import { html } from '../core/html.ts';
import { IdParams } from '../core/schemas.ts';
import { internalVisitors, type TimelineRow, viewerTimeline } from './activity-repo.ts';
import type { DashboardUser } from './auth.ts';
import { doneOf, htmlPage, idParam, type Route, withUser } from './context.ts';
import { paged, sendCsv } from './csv.ts';
import { notFound } from './errors.ts';
import { count, dashboardPage, duration, notice, table, when } from './layout.ts';
import { roomViewers, teamViewer } from './repo.ts';
import { roomOf, roomTabs } from './rooms.ts';

const ViewersQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 500 })),
  page: Type.Optional(Type.String({ maxLength: 20 })),
  done: Type.Optional(Type.String({ maxLength: 100 })),
});
const PAGE_SIZE = 50;
const TIMELINE_LIMIT = 500;

export const viewerRoutes: Route = (app, deps) => {
  const viewerOf = async (user: DashboardUser, id: string) => {
    const viewer = await teamViewer(deps.db, user.teamId, id);
    if (!viewer) throw notFound();
    return viewer;
  };

  app.get(
    '/rooms/:id/viewers',
    { schema: { params: IdParams, querystring: ViewersQuery } },
    async (request, reply) => {
      const { user } = request;
      const room = await roomOf(deps, user, idParam(request));
      const { q: typedQ = '', page = '1' } = request.query;
      const q = typedQ.trim().slice(0, 320);
      const pageNumber = Math.max(1, Math.min(100_000, Number.parseInt(page, 10) || 1));
      const rows = await roomViewers(deps.db, user.teamId, room.id, {
        q,
        limit: PAGE_SIZE + 1,
        offset: (pageNumber - 1) * PAGE_SIZE,
      });
      const more = rows.length > PAGE_SIZE;
      const own = pageNumber === 1 && !q ? await internalVisitors(deps.db, user.teamId, room.id, 20) : [];
      const at = (page: number) =>
        `/app/rooms/${room.id}/viewers?${new URLSearchParams({ q, page: String(page) }).toString()}`;
      const body = html`<div class="page-head"><div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div></div>
${roomTabs(room, 'viewers')}
${notice(doneOf(request))}
<form method="get" action="/app/rooms/${room.id}/viewers" class="filters" role="search">
  <div class="field grow"><label for="q">Search by email</label><input id="q" name="q" type="search" value="${q}" aria-describedby="q-hint">
    <p class="hint" id="q-hint">The start of an address: a name, or a whole address.</p></div>
  <button type="submit" class="secondary">Search</button>
</form>
${table({
  caption: `${count(room.viewers)} viewer${room.viewers === 1 ? '' : 's'}, latest first`,
  csv: `/app/rooms/${room.id}/viewers.csv?${new URLSearchParams({ q }).toString()}`,
  head: ['Viewer', 'Name', 'Views', 'Time', 'Documents', 'Last link', 'Last viewed'],
  numeric: [2, 3, 4],
  empty: q ? 'No viewer matches.' : 'No one has viewed this room yet.',
  rows: rows.slice(0, PAGE_SIZE).map(
    (
      v,
    ) => html`<tr><th scope="row"><a href="/app/viewers/${v.id}">${v.email || 'Anonymous viewer'}</a>${v.verified ? html` <span class="badge verified">Verified</span>` : ''}</th><td>${v.name}</td>
<td class="num">${count(v.total_views)}</td><td class="num">${duration(v.total_duration_seconds)}</td><td class="num">${count(v.documents_viewed)}</td>
<td>${v.link_name}</td><td>${when(v.last_viewed_at, user.timezone)}</td></tr>`,
  ),
})}
${
  own.length > 0
    ? table({
        caption: "Your team's own visits (internal: left out of every figure)",
        head: ['Person', 'Visits', 'Last visit'],
        numeric: [1],
        empty: '',
        rows: own.map(
          (v) =>
            html`<tr><th scope="row"><a href="/app/viewers/${v.id}">${v.email}</a> <span class="badge internal">Internal</span></th><td class="num">${count(v.visits)}</td><td>${when(v.last_at, user.timezone)}</td></tr>`,
        ),
      })
    : ''
}
${
  pageNumber > 1 || more
    ? html`<nav class="pager" aria-label="Pages">${pageNumber > 1 ? html`<a href="${at(pageNumber - 1)}">Previous</a>` : ''}<span>Page ${pageNumber}</span>${more ? html`<a href="${at(pageNumber + 1)}">Next</a>` : ''}</nav>`
    : ''
}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: `${room.name}: viewers`,
          section: 'rooms',
          crumbs: [['/app/rooms', 'Rooms']],
          body,
        }),
      );
    },
  );

  app.get(
    '/rooms/:id/viewers.csv',
    { schema: { params: IdParams, querystring: ViewersQuery } },
    async (request, reply) => {
      const { user } = request;
      const room = await roomOf(deps, user, idParam(request));
      const q = (request.query.q ?? '').trim().slice(0, 320);
      const rows = paged(1000, (offset, limit) =>
        roomViewers(deps.db, user.teamId, room.id, { q, limit, offset }),
      );
      return sendCsv(
        reply,
        `${room.name} viewers`,
        [
          'id',
          'email',
          'emailVerified',
          'name',
          'totalViews',
          'totalDurationSeconds',
          'documentsViewed',
          'linkName',
          'firstViewedAt',
          'lastViewedAt',
        ],
        (async function* () {
          for await (const v of rows) {
            yield [
              v.id,
              v.email,
              v.verified,
              v.name,
              v.total_views,
              v.total_duration_seconds,
              v.documents_viewed,
              v.link_name,
              v.first_viewed_at.toISOString(),
              v.last_viewed_at.toISOString(),
            ];
          }
        })(),
      );
    },
  );

  app.get(
    '/viewers/:id',
    withUser(async (request, reply, user) => {
      const viewer = await viewerOf(user, idParam(request));
      const timeline = await viewerTimeline(deps.db, user.teamId, viewer.id, TIMELINE_LIMIT);
      const label = viewer.email || 'Anonymous viewer';
      const body = html`<div class="page-head"><div><p class="eyebrow">Viewer</p><h1>${label}</h1>${viewer.verified ? html`<p><span class="badge verified">Email verified</span></p>` : ''}${viewer.name ? html`<p class="lead">${viewer.name}</p>` : ''}</div></div>
<section class="kpis" aria-label="Key figures">
  <div class="kpi"><p class="kpi-label">Views</p><p class="kpi-value">${count(viewer.total_views)}</p></div>
  <div class="kpi"><p class="kpi-label">Time</p><p class="kpi-value">${duration(viewer.total_duration_seconds)}</p></div>
  <div class="kpi"><p class="kpi-label">Documents</p><p class="kpi-value">${count(viewer.documents_viewed)}</p></div>
  <div class="kpi"><p class="kpi-label">First seen</p><p class="kpi-value small">${when(viewer.first_viewed_at, user.timezone)}</p></div>
</section>
${table({
  caption: 'Timeline, newest first',
  csv: `/app/viewers/${viewer.id}/timeline.csv`,
  head: ['When', 'What', 'Document', 'Time', 'Pages read', 'Link'],
  numeric: [3, 4],
  empty: 'Nothing yet.',
  rows: timeline.map(
    (t) => html`<tr><td>${when(t.at, user.timezone)}</td><td>${happening(t)}</td>
<td>${t.document_name ?? ''}</td><td class="num">${t.duration_seconds === null ? '' : duration(t.duration_seconds)}</td><td class="num">${t.pages ?? ''}</td><td>${t.link_name}</td></tr>`,
  ),
})}`;
      return htmlPage(
        reply,
        dashboardPage(user, {
          title: label,
          section: 'rooms',
          crumbs: [
            ['/app/rooms', 'Rooms'],
            [`/app/rooms/${viewer.deal_room_id}/viewers`, viewer.room_name],
          ],
          body,
        }),
      );
    }),
  );

  app.get(
    '/viewers/:id/timeline.csv',
    withUser(async (request, reply, user) => {
      const viewer = await viewerOf(user, idParam(request));
      const timeline = await viewerTimeline(deps.db, user.teamId, viewer.id, 100_000);
      return sendCsv(
        reply,
        `${viewer.email || 'anonymous'} timeline`,
        ['at', 'kind', 'emailVerified', 'internal', 'document', 'durationSeconds', 'pagesRead', 'link'],
        timeline.map((t) => [
          t.at.toISOString(),
          t.kind,
          t.verified,
          t.internal,
          t.document_name ?? '',
          t.duration_seconds ?? '',
          t.pages ?? '',
          t.link_name,
        ]),
      );
    }),
  );
};

/** A timeline entry in words. */
function happening(t: TimelineRow): string {
  const proved = t.verified ? ' (email verified)' : t.internal ? ' (internal: counted nowhere)' : '';
  switch (t.kind) {
    case 'view':
      return `${t.completed ? 'Viewed' : 'Viewing'}${proved}`;
    case 'visit':
      return `Opened the link${proved}`;
    case 'agreed':
      return `Accepted the agreement${proved}`;
    case 'refused':
      return `Refused: the link's lists keep this email out${proved}`;
    case 'download_refused':
      return `Download refused${proved}`;
    default:
      return `Downloaded${proved}`;
  }
}

import type { Analytics } from '../../analytics/schemas.ts';
import { type Html, html } from '../../core/html.ts';
import { PERIODS, type Period } from '../../core/period.ts';
import { roundedMean } from '../../core/time.ts';
import { clockInZone } from '../../core/zones.ts';
import type { ActivityRow } from '../activity-repo.ts';
import type { DashboardUser } from '../auth.ts';
import { errorSummary, type FormState, fieldError, typed } from '../forms.ts';
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
} from '../layout.ts';
import type { DayFigures, RoomListRow, RoomRow } from '../repo.ts';

/** The room form's fields, by name, and their labels. */
export const ROOM_FIELDS = { name: 'Name', description: 'Description' };
export const NEW_ROOM_FIELDS = { name: 'Name' };

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

export interface RoomsPage {
  rows: readonly RoomListRow[];
  total: number;
  q: string;
  status: 'active' | 'archived' | 'all';
  page: number;
  pages: number;
}

/** The team's rooms: the form for a new one (sent back with `form`), the search, a page of rooms. */
export function roomsView(
  user: DashboardUser,
  data: RoomsPage,
  o: { done?: string; form?: FormState } = {},
): string {
  const { q, status, page, pages, total } = data;
  const search = (n: number) =>
    `/app/rooms?${new URLSearchParams({ q, status, page: String(n) }).toString()}`;
  const name = fieldError(o.form, 'name', 'room-name');
  const body = html`<div class="page-head">
  <h1>Rooms</h1>
</div>
${errorSummary(o.form, { name: 'room-name' })}
${notice(o.done)}
${
  mayChange(user)
    ? html`<form method="post" action="/app/rooms" class="card row-form" novalidate>
  ${csrfField(user)}
  <div class="field grow"><label for="room-name">Name</label>${name.message}<input id="room-name" name="name" maxlength="200" value="${typed(o.form, 'name')}"${name.attributes}></div>
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
  rows: data.rows.map(
    (
      r,
    ) => html`<tr><th scope="row"><a href="/app/rooms/${r.id}">${r.name}</a></th><td><span class="badge ${r.status}">${r.status}</span></td>
<td class="num">${count(r.views_30d)}</td><td class="num">${count(r.viewers_30d)}</td><td>${when(r.last_activity, user.timezone)}</td></tr>`,
  ),
})}
${
  pages > 1
    ? html`<nav class="pager" aria-label="Pages">${page > 1 ? html`<a href="${search(page - 1)}">Previous</a>` : ''}<span>Page ${page} of ${pages}</span>${page < pages ? html`<a href="${search(page + 1)}">Next</a>` : ''}</nav>`
    : ''
}`;
  return dashboardPage(user, { title: 'Rooms', section: 'rooms', body });
}

export interface RoomOverview {
  room: RoomRow;
  period: Period;
  analytics: Analytics;
  /** The same length of time just before (not for "all"). */
  /** The period's figures over the days of the person's timezone, and its views per day. */
  totals: DayFigures;
  perDay: readonly { date: string; visits: number; views: number }[];
  /** The same number of days just before (not for "all"). */
  previous: DayFigures | undefined;
  activity: readonly ActivityRow[];
  /** The person follows the room (its visits reach them as they chose on Account). */
  following: boolean;
  /** Downloads the links or documents refused in the period. */
  refusedDownloads: number;
}

/** A room's overview: key figures against the period before, views per day, top documents and links, the last hour, its settings. */
export function roomView(
  user: DashboardUser,
  data: RoomOverview,
  o: { done?: string; form?: FormState } = {},
): string {
  const { room, period, analytics, totals, previous } = data;
  const average = roundedMean(totals.duration, totals.views);
  const avgPrevious = previous && previous.views > 0 ? previous.duration / previous.views : 0;
  const name = fieldError(o.form, 'name', 'room-name');
  const description = fieldError(o.form, 'description', 'room-description');
  const body = html`<div class="page-head">
  <div><p class="eyebrow">Deal room</p><h1>${room.name}</h1></div>
  <div class="head-actions"><span class="badge ${room.status}">${room.status}</span>
  <form method="post" action="/app/rooms/${room.id}/${data.following ? 'unfollow' : 'follow'}">${csrfField(user)}<button type="submit" class="secondary">${data.following ? 'Unfollow' : 'Follow'}</button></form></div>
</div>
${roomTabs(room, 'overview')}
${errorSummary(o.form, { name: 'room-name', description: 'room-description' })}
${notice(o.done)}
<nav class="periods" aria-label="Period">
  ${PERIODS.map((p) => html`<a href="/app/rooms/${room.id}?period=${p}"${p === period ? html` aria-current="page"` : ''}>${p === 'all' ? 'All time' : p}</a>`)}
</nav>
<section class="kpis" aria-label="Key figures">
  ${kpi('Views', count(totals.views), previous && change(totals.views, previous.views))}
  ${kpi('Unique viewers', count(totals.viewers), undefined)}
  ${kpi('Average time', duration(average), previous && change(average, avgPrevious))}
  ${kpi('Downloads', count(totals.downloads), previous && change(totals.downloads, previous.downloads))}
  ${kpi('Refused downloads', count(data.refusedDownloads), undefined)}
</section>
<section class="card">
  <h2>Visits and views per day</h2>
  <p class="hint">Days from midnight, ${user.timezone}.</p>
  <div class="chart-box"><canvas class="chart" role="img" aria-label="Visits and views per day" data-chart="${JSON.stringify(
    {
      type: 'bar',
      labels: data.perDay.map((d) => d.date),
      series: [
        { label: 'Visits', values: data.perDay.map((d) => d.visits) },
        { label: 'Views', values: data.perDay.map((d) => d.views) },
      ],
    },
  )}"></canvas></div>
  <details><summary>Visits and views per day as a table</summary>
  ${table({
    caption: 'Visits and views per day',
    head: ['Date', 'Visits', 'Views'],
    numeric: [1, 2],
    empty: 'No days in this period.',
    rows: data.perDay.map(
      (d) =>
        html`<tr><td>${d.date}</td><td class="num">${count(d.visits)}</td><td class="num">${count(d.views)}</td></tr>`,
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
  <ul class="activity" id="live" data-source="/app/rooms/${room.id}/activity" data-stream="/app/rooms/${room.id}/live" aria-live="polite">
    ${activityItems(data.activity, user.timezone)}
  </ul>
</section>
${
  mayChange(user)
    ? html`<section class="card">
  <h2>Room settings</h2>
  <form method="post" action="/app/rooms/${room.id}" class="stack" novalidate>
    ${csrfField(user)}
    <div class="field"><label for="room-name">Name</label>${name.message}<input id="room-name" name="name" maxlength="200" value="${typed(o.form, 'name', room.name)}"${name.attributes}></div>
    <div class="field"><label for="room-description">Description</label>${description.message}<textarea id="room-description" name="description" maxlength="5000"${description.attributes}>${typed(o.form, 'description', room.description)}</textarea></div>
    <button type="submit" class="primary">Save room</button>
  </form>
  <div class="actions">
    ${room.status === 'active' ? actionButton(user, `/app/rooms/${room.id}/archive`, 'Archive room') : actionButton(user, `/app/rooms/${room.id}/restore`, 'Restore room')}
    <a class="button danger" href="/app/rooms/${room.id}/delete">Delete room…</a>
  </div>
</section>`
    : ''
}`;
  return dashboardPage(user, {
    title: room.name,
    section: 'rooms',
    crumbs: [['/app/rooms', 'Rooms']],
    body,
    scripts: ['/assets/chart.umd.min.js'],
  });
}

/** What deleting a room takes with it, and the button that does it. */
export function deleteRoomView(user: DashboardUser, room: RoomRow): string {
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
  return dashboardPage(user, {
    title: `Delete ${room.name}`,
    section: 'rooms',
    crumbs: [
      ['/app/rooms', 'Rooms'],
      [`/app/rooms/${room.id}`, room.name],
    ],
    body,
  });
}

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

export function activityItems(
  rows: readonly { kind: string; at: Date; who: string; what: string; room?: string }[],
  zone: string,
  withRoom = false,
): Html {
  if (rows.length === 0) return html`<li class="empty">Nothing in the last hour.</li>`;
  const verb = {
    view: 'opened',
    visit: 'visited through',
    download: 'downloaded',
    refused: 'was refused by the lists of',
    download_refused: 'was refused a download of',
  } as Record<string, string>;
  return html`${rows.map((r) => html`<li><time datetime="${r.at.toISOString()}" title="${when(r.at, zone)}">${clockInZone(r.at, zone)}</time> <strong>${r.who}</strong> ${verb[r.kind] ?? r.kind} ${r.what}${withRoom && r.room ? ` (${r.room})` : ''}</li>`)}`;
}

import { Type } from '@sinclair/typebox';
import { getAnalytics } from '../analytics/service.ts';
import { isPeriod, PERIOD_DAYS, type Period } from '../core/period.ts';
import { IdParams } from '../core/schemas.ts';
import { zoneDays, zoneDaysSince } from '../core/zones.ts';
import { createDealRoom, deleteDealRoom, setDealRoomStatus, updateDealRoom } from '../deal-rooms/commands.ts';
import { DealRoomBody } from '../deal-rooms/schemas.ts';
import { follows } from '../notifications/repo.ts';
import { recentActivity, refusedDownloads } from './activity-repo.ts';
import type { DashboardUser } from './auth.ts';
import {
  asUser,
  type DashboardDeps,
  DONE,
  htmlPage,
  idParam,
  type Route,
  redirect,
  subjectAction,
} from './context.ts';
import { paged, sendCsv } from './csv.ts';
import { notFound } from './errors.ts';
import { FormBody, type FormState, PeriodQuery, QueryText, readForm, refusedField } from './forms.ts';
import { type DayFigures, type RoomRow, roomZoneDays, teamRoom, teamRooms } from './repo.ts';
import { deleteRoomView, NEW_ROOM_FIELDS, ROOM_FIELDS, roomsView, roomView } from './views/rooms.ts';

export { roomTabs } from './views/rooms.ts';

const PAGE_SIZE = 50;
const RoomsQuery = Type.Object({ q: QueryText, status: QueryText, page: QueryText, done: QueryText });
const NewRoom = Type.Pick(DealRoomBody, ['name']);

/** The rooms list's search and status, as the page and its CSV read them. */
function roomFilter(query: { q?: string | undefined; status?: string | undefined }) {
  const q = (query.q ?? '').trim().slice(0, 200);
  const status = query.status === 'archived' || query.status === 'all' ? query.status : 'active';
  return { q, status } as const;
}

export const periodOf = (value: string | undefined): Period => (isPeriod(value) ? value : '30d');

export async function roomOf(deps: DashboardDeps, user: DashboardUser, roomId: string): Promise<RoomRow> {
  const room = await teamRoom(deps.db, user.teamId, roomId);
  if (!room) throw notFound();
  return room;
}

export const roomRoutes: Route = (app, deps) => {
  /** The start of the last 30 days of the person's timezone. */
  const since = (user: DashboardUser) => {
    const now = deps.clock.now();
    return zoneDays(user.timezone, now, 30)[0]?.start ?? now;
  };
  const roomsPage = async (
    user: DashboardUser,
    query: { q?: string | undefined; status?: string | undefined; page?: string | undefined },
    o: { done?: string | undefined; form?: FormState } = {},
  ) => {
    const { q, status } = roomFilter(query);
    const page = Math.max(1, Math.min(10_000, Number.parseInt(query.page ?? '1', 10) || 1));
    const { rows, total } = await teamRooms(deps.db, user.teamId, {
      q,
      status,
      since: since(user),
      limit: PAGE_SIZE,
      offset: (page - 1) * PAGE_SIZE,
    });
    const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
    return roomsView(user, { rows, total, q, status, page, pages }, o);
  };

  const overview = async (user: DashboardUser, room: RoomRow, period: Period) => {
    const now = deps.clock.now();
    const analytics = await getAnalytics(deps.db, user.teamId, room.id, period, now);
    // The period's days in the person's timezone, and for 7d, 30d and 90d the same number of
    // days just before (one bucket), from the room's 15-minute slots.
    const count =
      period === 'all'
        ? zoneDaysSince(
            user.timezone,
            new Date(Math.min(room.created_at.getTime(), room.first_view_at?.getTime() ?? Infinity)),
            now,
          )
        : PERIOD_DAYS[period];
    const withPrevious = zoneDays(user.timezone, now, period === 'all' ? count : count * 2);
    const days = withPrevious.slice(-count);
    const before = period === 'all' ? undefined : withPrevious[0];
    const starts = [...(before ? [before.start] : []), ...days.map((d) => d.start)];
    const figures = await roomZoneDays(deps.db, user.teamId, room.id, starts);
    const previous = before ? figures.shift() : undefined;
    const totals = figures.reduce(
      (sum, d) => ({
        visits: sum.visits + d.visits,
        views: sum.views + d.views,
        duration: sum.duration + d.duration,
        viewers: sum.viewers + d.viewers,
        downloads: sum.downloads + d.downloads,
      }),
      { visits: 0, views: 0, duration: 0, viewers: 0, downloads: 0 } as DayFigures,
    );
    const activity = await recentActivity(
      deps.db,
      { teamId: user.teamId, roomId: room.id },
      new Date(now.getTime() - 3600_000),
      20,
    );
    const following = await follows(deps.db, user.id, room.id);
    const refused = await refusedDownloads(
      deps.db,
      user.teamId,
      room.id,
      period === 'all' ? new Date(0) : (starts[1] ?? now),
    );
    return {
      room,
      period,
      analytics,
      totals,
      perDay: days.map((d, i) => ({
        date: d.date,
        visits: figures[i]?.visits ?? 0,
        views: figures[i]?.views ?? 0,
      })),
      previous,
      activity,
      following,
      refusedDownloads: refused,
    };
  };

  app.get('/rooms', { schema: { querystring: RoomsQuery } }, async (request, reply) =>
    htmlPage(reply, await roomsPage(request.user, request.query, { done: DONE[request.query.done ?? ''] })),
  );

  app.get('/rooms.csv', { schema: { querystring: RoomsQuery } }, async (request, reply) => {
    const { q, status } = roomFilter(request.query);
    const rows = paged(
      500,
      async (offset, limit) =>
        (
          await teamRooms(deps.db, request.user.teamId, {
            q,
            status,
            since: since(request.user),
            limit,
            offset,
          })
        ).rows,
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
  });

  app.post('/rooms', { schema: { body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const form = readForm(NewRoom, request.body, NEW_ROOM_FIELDS);
    if (!form.ok) return htmlPage(reply, await roomsPage(user, {}, { form: form.state }), 400);
    const room = await asUser(
      deps,
      user,
      { action: 'deal_room.created', subject: { type: 'deal_room' } },
      (ctx) => createDealRoom(ctx, user.teamId, form.value),
    );
    return redirect(reply, `/app/rooms/${room.id}/documents?done=room-created`);
  });

  app.get(
    '/rooms/:id',
    { schema: { params: IdParams, querystring: PeriodQuery } },
    async (request, reply) => {
      const { user } = request;
      const room = await roomOf(deps, user, idParam(request));
      const data = await overview(user, room, periodOf(request.query.period));
      return htmlPage(reply, roomView(user, data, { done: DONE[request.query.done ?? ''] }));
    },
  );

  app.post('/rooms/:id', { schema: { params: IdParams, body: FormBody } }, async (request, reply) => {
    const { user } = request;
    const room = await roomOf(deps, user, idParam(request));
    const sentBack = async (form: FormState) =>
      htmlPage(reply, roomView(user, await overview(user, room, '30d'), { form }), 400);
    const form = readForm(DealRoomBody, request.body, ROOM_FIELDS);
    if (!form.ok) return sentBack(form.state);
    const saved = await asUser(
      deps,
      user,
      {
        action: 'deal_room.updated',
        subject: { type: 'deal_room', id: room.id },
        before: { name: room.name, description: room.description },
      },
      (ctx) => updateDealRoom(ctx, room.id, { description: '', ...form.value }),
    ).catch((err) => refusedField(err, request.body, ROOM_FIELDS));
    if ('errors' in saved) return sentBack(saved);
    return redirect(reply, `/app/rooms/${room.id}?done=room-saved`);
  });

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
    { schema: { params: IdParams }, config: { may: 'change' } },
    async (request, reply) =>
      htmlPage(reply, deleteRoomView(request.user, await roomOf(deps, request.user, idParam(request)))),
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

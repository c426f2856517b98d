import { Type } from '@sinclair/typebox';
import { type AuditFilter, auditChoices, auditPage } from '../audit/repo.ts';
import { addDays } from '../core/time.ts';
import { htmlPage, type Route } from './context.ts';
import { sendCsv } from './csv.ts';
import { type AuditQuery, auditView } from './views/audit.ts';

const AUDIT_PAGE = 100;
const Text = (max: number) => Type.Optional(Type.String({ maxLength: max }));
const AuditQuerySchema = Type.Object({
  before: Text(100),
  email: Text(320),
  action: Text(100),
  from: Text(10),
  to: Text(10),
});
type Sent = {
  before?: string | undefined;
  email?: string | undefined;
  action?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
};

const DAY = /^\d{4}-\d\d-\d\d$/;
const dayOf = (text: string | undefined) =>
  text && DAY.test(text) && !Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ? text : '';

/** The page's filter as typed (a malformed day is left out) and as the log reads it. */
function filterOf(sent: Sent): { query: AuditQuery; filter: AuditFilter } {
  const query = {
    email: sent.email ?? '',
    action: sent.action ?? '',
    from: dayOf(sent.from),
    to: dayOf(sent.to),
  };
  return {
    query,
    filter: {
      email: query.email || undefined,
      action: query.action || undefined,
      from: query.from ? new Date(`${query.from}T00:00:00Z`) : undefined,
      to: query.to ? addDays(new Date(`${query.to}T00:00:00Z`), 1) : undefined,
    },
  };
}

const search = (query: AuditQuery, more: Record<string, string> = {}) =>
  new URLSearchParams(
    Object.entries({ ...query, ...more }).filter(([, v]) => v !== '') as [string, string][],
  ).toString();

/** The audit log: every change made in the dashboard, newest first, filtered, and its CSV. */
export const auditRoutes: Route = (app, deps) => {
  app.get('/settings/audit', { schema: { querystring: AuditQuerySchema } }, async (request, reply) => {
    const { user } = request;
    const { query, filter } = filterOf(request.query);
    const before = request.query.before === undefined ? undefined : parseCursor(request.query.before);
    const [rows, choices] = await Promise.all([
      auditPage(deps.db, user.teamId, { limit: AUDIT_PAGE + 1, before, filter }),
      auditChoices(deps.db, user.teamId),
    ]);
    const last = rows[AUDIT_PAGE - 1];
    const older =
      rows.length > AUDIT_PAGE && last
        ? `/app/settings/audit?${search(query, { before: `${last.at.toISOString()}_${last.id}` })}`
        : undefined;
    const csv = `/app/settings/audit.csv${search(query) ? `?${search(query)}` : ''}`;
    return htmlPage(reply, auditView(user, rows.slice(0, AUDIT_PAGE), { query, choices, older, csv }));
  });

  app.get('/settings/audit.csv', { schema: { querystring: AuditQuerySchema } }, async (request, reply) => {
    const { user } = request;
    const { filter } = filterOf(request.query);
    async function* rows() {
      let before: { at: Date; id: string } | undefined;
      for (;;) {
        const batch = await auditPage(deps.db, user.teamId, { limit: 500, before, filter });
        for (const r of batch) {
          yield [
            r.at.toISOString(),
            r.user_email,
            r.action,
            r.subject_type,
            r.subject_id ?? '',
            r.subject_name ?? '',
            JSON.stringify(r.before),
            JSON.stringify(r.after),
          ];
        }
        const last = batch.at(-1);
        if (batch.length < 500 || !last) return;
        before = { at: last.at, id: last.id };
      }
    }
    return sendCsv(
      reply,
      'audit-log',
      ['at', 'userEmail', 'action', 'subjectType', 'subjectId', 'subjectName', 'before', 'after'],
      rows(),
    );
  });
};

function parseCursor(text: string): { at: Date; id: string } | undefined {
  const [at, id] = text.split('_');
  const when = new Date(at ?? '');
  if (Number.isNaN(when.getTime()) || !id || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
  return { at: when, id };
}

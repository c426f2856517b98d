import { Type } from '@sinclair/typebox';
import { auditPage } from '../audit/repo.ts';
import { htmlPage, type Route, withUser } from './context.ts';
import { sendCsv } from './csv.ts';
import { auditView } from './views/audit.ts';

const AUDIT_PAGE = 100;
const AuditQuery = Type.Object({ before: Type.Optional(Type.String({ maxLength: 100 })) });

/** The audit log: every change made in the dashboard, newest first, and its CSV. */
export const auditRoutes: Route = (app, deps) => {
  app.get('/settings/audit', { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const { user } = request;
    const { before } = request.query;
    const rows = await auditPage(deps.db, user.teamId, {
      limit: AUDIT_PAGE + 1,
      before: before === undefined ? undefined : parseCursor(before),
    });
    const last = rows[AUDIT_PAGE - 1];
    const older =
      rows.length > AUDIT_PAGE && last
        ? `/app/settings/audit?before=${last.at.toISOString()}_${last.id}`
        : undefined;
    return htmlPage(reply, auditView(user, rows.slice(0, AUDIT_PAGE), older));
  });

  app.get(
    '/settings/audit.csv',
    withUser(async (_request, reply, user) => {
      async function* rows() {
        let before: { at: Date; id: string } | undefined;
        for (;;) {
          const batch = await auditPage(deps.db, user.teamId, { limit: 500, before });
          for (const r of batch) {
            yield [
              r.at.toISOString(),
              r.user_email,
              r.action,
              r.subject_type,
              r.subject_id ?? '',
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
        ['at', 'userEmail', 'action', 'subjectType', 'subjectId', 'before', 'after'],
        rows(),
      );
    }),
  );
};

function parseCursor(text: string): { at: Date; id: string } | undefined {
  const [at, id] = text.split('_');
  const when = new Date(at ?? '');
  if (Number.isNaN(when.getTime()) || !id || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
  return { at: when, id };
}

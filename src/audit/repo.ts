import { newId } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';

/** A person of a team making a change in the dashboard: every change of theirs is logged. */
export interface UserActor {
  kind: 'user';
  teamId: string;
  userId: string;
  email: string;
}

export interface AuditEntry {
  action: string;
  subject: { type: string; id?: string | undefined };
  before?: unknown;
  after?: unknown;
}

export interface AuditRow {
  id: string;
  at: Date;
  user_email: string;
  action: string;
  subject_type: string;
  subject_id: string | null;
  /** What the subject is called now, or was called when it was deleted; null when unknown. */
  subject_name: string | null;
  /** Whether the subject still exists (its page can be linked). */
  subject_exists: boolean;
  before: unknown;
  after: unknown;
}

/** What a page of the log keeps to: one person, one action, a range of days. */
export interface AuditFilter {
  email?: string | undefined;
  action?: string | undefined;
  /** From this instant (inclusive) to that one (exclusive). */
  from?: Date | undefined;
  to?: Date | undefined;
}

/** Fields never written to the log, wherever they stand: a plain key or secret, a password. */
const SECRET_FIELDS = new Set(['key', 'secret', 'password', 'passwordHash', 'password_hash', 'token']);

export function withoutSecrets(value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([name]) => !SECRET_FIELDS.has(name))
      .map(([name, field]) => [name, withoutSecrets(field)]),
  );
}

/** Writes one entry, in the transaction of the change it describes. */
export async function recordAudit(
  tx: Queryable & { now: Date },
  actor: UserActor,
  entry: AuditEntry,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_log (id, team_id, at, user_id, user_email, action, subject_type, subject_id, before, after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10::jsonb)`,
    [
      newId(tx.now.getTime()),
      actor.teamId,
      tx.now,
      actor.userId,
      actor.email,
      entry.action,
      entry.subject.type,
      entry.subject.id ?? null,
      JSON.stringify(withoutSecrets(entry.before)),
      JSON.stringify(withoutSecrets(entry.after)),
    ],
  );
}

/** A team's log, newest first, a page at a time (keyset on time and id), each subject named. */
export async function auditPage(
  db: Queryable,
  teamId: string,
  options: { limit: number; before?: { at: Date; id: string } | undefined; filter?: AuditFilter | undefined },
): Promise<AuditRow[]> {
  const f = options.filter ?? {};
  return db.query<AuditRow>(
    `SELECT a.id, a.at, a.user_email, a.action, a.subject_type, a.subject_id, a.before, a.after,
            coalesce(r.name, d.name, l.name, u.email, k.name, e.url,
                     a.before->>'name', a.before->>'email', a.before->>'url',
                     a.after->>'name', a.after->>'email', a.after->>'url') AS subject_name,
            coalesce(r.id, d.id, l.id, u.id, k.id, e.id) IS NOT NULL AS subject_exists
       FROM audit_log a
       LEFT JOIN deal_rooms r ON a.subject_type = 'deal_room' AND r.id::text = a.subject_id AND r.team_id = a.team_id
       LEFT JOIN documents d ON a.subject_type = 'document' AND d.id::text = a.subject_id
                            AND d.deal_room_id IN (SELECT id FROM deal_rooms WHERE team_id = a.team_id)
       LEFT JOIN links l ON a.subject_type = 'link' AND l.id::text = a.subject_id
                        AND l.deal_room_id IN (SELECT id FROM deal_rooms WHERE team_id = a.team_id)
       LEFT JOIN users u ON a.subject_type = 'user' AND u.id::text = a.subject_id AND u.team_id = a.team_id
       LEFT JOIN api_keys k ON a.subject_type = 'api_key' AND k.id::text = a.subject_id AND k.team_id = a.team_id
       LEFT JOIN webhook_endpoints e ON a.subject_type = 'webhook_endpoint' AND e.id::text = a.subject_id
                                    AND e.team_id = a.team_id
      WHERE a.team_id = $1 AND ($2::timestamptz IS NULL OR (a.at, a.id) < ($2::timestamptz, $3::uuid))
        AND ($5::text IS NULL OR a.user_email = $5) AND ($6::text IS NULL OR a.action = $6)
        AND ($7::timestamptz IS NULL OR a.at >= $7) AND ($8::timestamptz IS NULL OR a.at < $8)
      ORDER BY a.at DESC, a.id DESC LIMIT $4`,
    [
      teamId,
      options.before?.at ?? null,
      options.before?.id ?? null,
      options.limit,
      f.email ?? null,
      f.action ?? null,
      f.from ?? null,
      f.to ?? null,
    ],
  );
}

/** The people and actions a team's log holds, for its filters. */
export async function auditChoices(
  db: Queryable,
  teamId: string,
): Promise<{ emails: string[]; actions: string[] }> {
  const [emails, actions] = await Promise.all([
    db.query<{ v: string }>(
      'SELECT DISTINCT user_email AS v FROM audit_log WHERE team_id = $1 ORDER BY 1 LIMIT 200',
      [teamId],
    ),
    db.query<{ v: string }>(
      'SELECT DISTINCT action AS v FROM audit_log WHERE team_id = $1 ORDER BY 1 LIMIT 200',
      [teamId],
    ),
  ]);
  return { emails: emails.map((r) => r.v), actions: actions.map((r) => r.v) };
}

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
  before: unknown;
  after: unknown;
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

/** A team's log, newest first, a page at a time (keyset on time and id). */
export async function auditPage(
  db: Queryable,
  teamId: string,
  options: { limit: number; before?: { at: Date; id: string } | undefined },
): Promise<AuditRow[]> {
  return db.query<AuditRow>(
    `SELECT id, at, user_email, action, subject_type, subject_id, before, after FROM audit_log
      WHERE team_id = $1 AND ($2::timestamptz IS NULL OR (at, id) < ($2::timestamptz, $3::uuid))
      ORDER BY at DESC, id DESC LIMIT $4`,
    [teamId, options.before?.at ?? null, options.before?.id ?? null, options.limit],
  );
}

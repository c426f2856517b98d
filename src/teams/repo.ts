import type { Queryable } from '../db/database.ts';
import { lockClause, type RowLock } from '../write/row-lock.ts';
import { scopeOf } from '../write/transaction.ts';

export async function teamExists(tx: Queryable, id: string): Promise<boolean> {
  const scope = scopeOf(tx);
  return (
    (await tx.query('SELECT 1 FROM teams WHERE id = $1 AND ($2::uuid IS NULL OR id = $2)', [id, scope]))
      .length > 0
  );
}

export async function insertTeam(
  tx: Queryable,
  team: { id: string; name: string },
  now: Date,
): Promise<void> {
  await tx.query('INSERT INTO teams (id, name, created_at) VALUES ($1, $2, $3)', [team.id, team.name, now]);
}

/** Whether the store holds any team at all (an empty store is seeded with the demo). */
export async function anyTeam(tx: Queryable): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM teams LIMIT 1')).length > 0;
}

/** Every team, oldest first (the management API's and the CLI's list). */
export async function listTeams(db: Queryable): Promise<{ id: string; name: string; createdAt: string }[]> {
  const rows = await db.query<{ id: string; name: string; created_at: Date }>(
    'SELECT id, name, created_at FROM teams ORDER BY created_at, id',
  );
  return rows.map((row) => ({ id: row.id, name: row.name, createdAt: row.created_at.toISOString() }));
}

/** A team with its settings, as the management API and the dashboard show them. */
export interface TeamSettings {
  id: string;
  name: string;
  createdAt: string;
  timezone: string;
  internalDomains: string[];
}

export async function loadTeamSettings(
  tx: Queryable,
  id: string,
  lock: RowLock = 'none',
): Promise<TeamSettings | undefined> {
  const [row] = await tx.query<{
    id: string;
    name: string;
    created_at: Date;
    timezone: string;
    internal_domains: string[];
  }>(
    `SELECT t.id, t.name, t.created_at, t.timezone, t.internal_domains FROM teams t
      WHERE t.id = $1 AND ($2::uuid IS NULL OR t.id = $2)${lockClause(lock, 't')}`,
    [id, scopeOf(tx)],
  );
  return (
    row && {
      id: row.id,
      name: row.name,
      createdAt: row.created_at.toISOString(),
      timezone: row.timezone,
      internalDomains: row.internal_domains,
    }
  );
}

export async function updateTeamRow(
  tx: Queryable,
  id: string,
  changes: {
    name?: string | undefined;
    timezone?: string | undefined;
    internalDomains?: string[] | undefined;
  },
): Promise<void> {
  await tx.query(
    `UPDATE teams SET name = coalesce($2, name), timezone = coalesce($3, timezone),
            internal_domains = coalesce($4, internal_domains)
      WHERE id = $1`,
    [id, changes.name ?? null, changes.timezone ?? null, changes.internalDomains ?? null],
  );
}

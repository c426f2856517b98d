import type { Queryable } from '../db/database.ts';
import { scopeOf } from '../write/transaction.ts';

export interface ApiKeyRow {
  id: string;
  team_id: string;
  name: string;
  display_prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

export interface ActiveKey {
  id: string;
  teamId: string;
  keyHash: string;
}

export async function findActiveKeyByHash(db: Queryable, keyHash: string): Promise<ActiveKey | undefined> {
  const rows = await db.query<{ id: string; team_id: string; key_hash: string }>(
    'SELECT id, team_id, key_hash FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL',
    [keyHash],
  );
  const row = rows[0];
  return row && { id: row.id, teamId: row.team_id, keyHash: row.key_hash };
}

export async function touchKey(db: Queryable, keyId: string, at: Date, minIntervalMs: number): Promise<void> {
  await db.query(
    `UPDATE api_keys SET last_used_at = $2
      WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= $3)`,
    [keyId, at, new Date(at.getTime() - minIntervalMs)],
  );
}

export async function insertKey(
  db: Queryable,
  key: {
    id: string;
    teamId: string;
    name: string;
    keyHash: string;
    displayPrefix: string;
    createdAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, team_id, name, key_hash, display_prefix, created_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [key.id, key.teamId, key.name, key.keyHash, key.displayPrefix, key.createdAt],
  );
}

export async function countActiveKeys(db: Queryable, teamId: string): Promise<number> {
  const rows = await db.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE team_id = $1 AND revoked_at IS NULL',
    [teamId],
  );
  return rows[0]?.n ?? 0;
}

export async function listKeys(db: Queryable, teamId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(
    `SELECT id, team_id, name, display_prefix, created_at, last_used_at, revoked_at
       FROM api_keys WHERE team_id = $1 ORDER BY created_at DESC, id`,
    [teamId],
  );
}

/** Marks a key revoked; returns it, or undefined when there is no such key. */
export async function revokeKey(db: Queryable, keyId: string, at: Date): Promise<ApiKeyRow | undefined> {
  const rows = await db.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2)
      WHERE id = $1 AND ($3::uuid IS NULL OR team_id = $3)
     RETURNING id, team_id, name, display_prefix, created_at, last_used_at, revoked_at`,
    [keyId, at, scopeOf(db)],
  );
  return rows[0];
}

export async function teamExists(db: Queryable, teamId: string): Promise<boolean> {
  const rows = await db.query('SELECT 1 FROM teams WHERE id = $1 AND ($2::uuid IS NULL OR id = $2)', [
    teamId,
    scopeOf(db),
  ]);
  return rows.length > 0;
}

/** Serialises key creation per team so two concurrent creations cannot pass the limit. */
export async function lockTeam(db: Queryable, teamId: string): Promise<void> {
  await db.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [teamId]);
}

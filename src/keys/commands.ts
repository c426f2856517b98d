import { randomUUID } from 'node:crypto';
import type { Static } from '@sinclair/typebox';
import { ApiError, apiErrors, fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Queryable } from '../db/database.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { DISPLAY_PREFIX_LENGTH, generateApiKey, hashApiKey } from './format.ts';
import * as repo from './repo.ts';
import type { ApiKeySchema } from './schemas.ts';

export const MAX_ACTIVE_KEYS_PER_TEAM = 5;

export type ApiKeyView = Static<typeof ApiKeySchema>;

/**
 * A new key for the team. The plain key is in this answer only: a repeat of the request
 * under the same Idempotency-Key gets the key's record without it.
 */
export async function createApiKey(
  ctx: WriteContext,
  input: { teamId: string; name?: string | undefined },
): Promise<{ key: string; apiKey: ApiKeyView }> {
  if (!isUuid(input.teamId)) throw apiErrors.teamNotFound();
  const name = (input.name ?? 'API key').trim();
  if (name.length === 0 || name.length > 200) {
    throw new ApiError('validation_error', 'name must be 1 to 200 characters');
  }
  const key = generateApiKey();
  const row = {
    id: randomUUID(),
    teamId: input.teamId,
    name,
    keyHash: hashApiKey(key),
    displayPrefix: key.slice(0, DISPLAY_PREFIX_LENGTH),
    createdAt: ctx.clock.now(),
  };
  const apiKey: ApiKeyView = {
    id: row.id,
    teamId: row.teamId,
    name: row.name,
    prefix: row.displayPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
  return inWrite(
    ctx,
    async (tx) => {
      if (!(await repo.teamExists(tx, input.teamId))) throw apiErrors.teamNotFound();
      await repo.lockTeam(tx, input.teamId);
      if ((await repo.countActiveKeys(tx, input.teamId)) >= MAX_ACTIVE_KEYS_PER_TEAM) {
        throw new ApiError(
          'conflict',
          `A team may hold at most ${MAX_ACTIVE_KEYS_PER_TEAM} active API keys; revoke one first`,
        );
      }
      await repo.insertKey(tx, row);
      return { key, apiKey };
    },
    (result) => ({ apiKey: result.apiKey }),
  );
}

export async function listApiKeys(db: Queryable, teamId: string): Promise<ApiKeyView[]> {
  if (!isUuid(teamId) || !(await repo.teamExists(db, teamId))) {
    throw apiErrors.teamNotFound();
  }
  return (await repo.listKeys(db, teamId)).map(toView);
}

/** Revokes a key (a revoked key stays revoked, with its first revocation time). */
export async function revokeApiKey(ctx: WriteContext, keyId: string): Promise<ApiKeyView> {
  if (!isUuid(keyId)) throw fail('apiKeyNotFound');
  return inWrite(ctx, async (tx) => {
    const row = await repo.revokeKey(tx, keyId, tx.now);
    if (!row) throw fail('apiKeyNotFound');
    return toView(row);
  });
}

function toView(row: repo.ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    teamId: row.team_id,
    name: row.name,
    prefix: row.display_prefix,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

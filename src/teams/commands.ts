import type { Static } from '@sinclair/typebox';
import { entryKeys } from '../core/email-entries.ts';
import { ApiError, fail } from '../core/errors.ts';
import { isUuid, newId } from '../core/ids.ts';
import { timezoneOf } from '../core/zones.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { insertTeam, loadTeamSettings, type TeamSettings, updateTeamRow } from './repo.ts';
import type { TeamSchema } from './schemas.ts';

export type Team = Static<typeof TeamSchema>;

/** A new team; `id` is for the demo seed, whose team keeps a fixed id across starts. */
export async function createTeam(ctx: WriteContext, input: { name: string; id?: string }): Promise<Team> {
  return inWrite(ctx, async (tx) => {
    const id = input.id ?? newId(tx.now.getTime());
    await insertTeam(tx, { id, name: input.name }, tx.now);
    return { id, name: input.name, createdAt: tx.now.toISOString() };
  });
}

/**
 * A team's settings: its timezone (an IANA name) and its internal domains (`@domain` entries:
 * visits by those emails, as by the team's users, are the team's own and counted nowhere).
 */
export async function updateTeamSettings(
  ctx: WriteContext,
  teamId: string,
  changes: {
    name?: string | undefined;
    timezone?: string | undefined;
    internalDomains?: string[] | undefined;
  },
): Promise<TeamSettings> {
  if (!isUuid(teamId)) throw fail('teamNotFound');
  let timezone: string | undefined;
  if (changes.timezone !== undefined) {
    timezone = timezoneOf(changes.timezone);
    if (!timezone)
      throw new ApiError('validation_error', 'timezone must be an IANA timezone such as Europe/Paris');
  }
  let internalDomains: string[] | undefined;
  if (changes.internalDomains !== undefined) {
    const kept = entryKeys(changes.internalDomains);
    const notDomain = kept.ok ? kept.keys.findIndex((key) => !key.startsWith('@')) : kept.index;
    if (!kept.ok || notDomain >= 0) {
      throw new ApiError('validation_error', `internalDomains.${notDomain} must be an @domain entry`);
    }
    internalDomains = kept.keys;
  }
  return inWrite(ctx, async (tx) => {
    const team = await loadTeamSettings(tx, teamId, 'update');
    if (!team) throw fail('teamNotFound');
    await updateTeamRow(tx, teamId, { name: changes.name, timezone, internalDomains });
    return (await loadTeamSettings(tx, teamId)) as TeamSettings;
  });
}

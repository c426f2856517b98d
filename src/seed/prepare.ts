import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/commands.ts';
import { anyTeam, teamExists } from '../teams/repo.ts';
import { DEMO_TEAM_ID } from './demo.ts';
import { writeDemo } from './write.ts';

const DEMO_KEY_NAME = 'demo';

export async function isEmpty(db: Database): Promise<boolean> {
  return !(await anyTeam(db));
}

export async function hasDemoTeam(db: Database): Promise<boolean> {
  return teamExists(db, DEMO_TEAM_ID);
}

/** Loads the demo dataset and returns a key of the demo team. */
export async function seedDemo(db: Database, clock: Clock): Promise<string> {
  await writeDemo(db, clock);
  const { key } = await createApiKey(
    { db, clock, appUrl: '' },
    { teamId: DEMO_TEAM_ID, name: DEMO_KEY_NAME },
  );
  return key;
}

/**
 * A fresh key for the demo team: earlier demo keys are revoked (their plain text was never
 * stored, so it cannot be shown again) and the team stays within its key limit.
 */
export async function renewDemoKey(db: Database, clock: Clock): Promise<string> {
  for (const key of await listApiKeys(db, DEMO_TEAM_ID)) {
    if (key.name === DEMO_KEY_NAME && key.revokedAt === null)
      await revokeApiKey({ db, clock, appUrl: '' }, key.id);
  }
  const { key } = await createApiKey(
    { db, clock, appUrl: '' },
    { teamId: DEMO_TEAM_ID, name: DEMO_KEY_NAME },
  );
  return key;
}

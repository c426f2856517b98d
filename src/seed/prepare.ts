import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.ts';
import { hashPassword } from '../core/passwords.ts';
import type { Database } from '../db/database.ts';
import { createApiKey, listApiKeys, revokeApiKey } from '../keys/commands.ts';
import type { FileWork } from '../rendering/pool.ts';
import { anyTeam, teamExists } from '../teams/repo.ts';
import { inviteUser } from '../users/commands.ts';
import { deleteUserSessions, setPasswordHash, userByEmail } from '../users/repo.ts';
import { inWrite } from '../write/transaction.ts';
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
export async function seedDemo(db: Database, clock: Clock, work: FileWork): Promise<string> {
  await writeDemo(db, clock, work);
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

/** The demo team's owner in the dashboard. */
export const DEMO_USER_EMAIL = 'owner@demo.example';

/**
 * The demo owner's sign-in: the account is made on the first start, and every start gives it
 * a fresh password (shown once, like the demo key) and ends its earlier sessions.
 */
export async function renewDemoUser(
  db: Database,
  clock: Clock,
): Promise<{ email: string; password: string }> {
  const ctx = { db, clock, appUrl: '' };
  if (!(await userByEmail(db, DEMO_USER_EMAIL))) {
    await inviteUser(ctx, { teamId: DEMO_TEAM_ID, email: DEMO_USER_EMAIL, role: 'owner' });
  }
  const password = randomBytes(12).toString('base64url');
  const hash = await hashPassword(password);
  await inWrite(ctx, async (tx) => {
    const user = await userByEmail(tx, DEMO_USER_EMAIL);
    if (!user) return;
    await setPasswordHash(tx, user.id, hash, tx.now);
    await deleteUserSessions(tx, user.id);
  });
  return { email: DEMO_USER_EMAIL, password };
}

import type { Static } from '@sinclair/typebox';
import { newId } from '../core/ids.ts';
import { inWrite, type WriteContext } from '../write/transaction.ts';
import { insertTeam } from './repo.ts';
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

import type { Queryable } from '../db/database.ts';

export async function teamExists(tx: Queryable, id: string): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM teams WHERE id = $1', [id])).length > 0;
}

import { parseArgs } from 'node:util';
import { createFileWork } from '../rendering/pool.ts';
import { DEMO_TEAM_ID } from '../seed/demo.ts';
import { isEmpty, seedDemo } from '../seed/prepare.ts';
import { type CommandContext, UsageError } from './context.ts';

export async function seedCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { demo: { type: 'boolean' } } });
  if (!values.demo) throw new UsageError('usage: dealroom seed --demo');
  if (!(await isEmpty(ctx.db))) {
    throw new UsageError('the database already holds data; seed --demo only fills an empty database');
  }
  const work = createFileWork(ctx.config.files);
  let key: string;
  try {
    key = await seedDemo(ctx.db, ctx.clock, work);
  } finally {
    await work.close();
  }
  ctx.err(`demo data loaded; team ${DEMO_TEAM_ID} (Northwind Capital) has this key:`);
  ctx.out(key);
}

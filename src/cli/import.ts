import { existsSync } from 'node:fs';
import { importRecords } from '../import/service.ts';
import { readImportFile } from '../import/sources.ts';
import { type CommandContext, UsageError } from './context.ts';

export async function importCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [file] = args;
  if (!file || args.length !== 1) throw new UsageError('usage: dealroom import FILE (.json or .ndjson)');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const started = Date.now();
  const counts = await importRecords(ctx.db, ctx.clock, readImportFile(file), {
    onProgress: (records) => {
      const seconds = (Date.now() - started) / 1000;
      ctx.err(
        `… ${records.toLocaleString('en-US')} records read (${Math.round(records / seconds).toLocaleString('en-US')}/s)`,
      );
    },
  });
  const summary = Object.entries(counts)
    .map(([type, n]) => `${n} ${type}${n === 1 ? '' : 's'}`)
    .join(', ');
  const peakMiB = Math.round(process.resourceUsage().maxRSS / 1024);
  ctx.out(
    `imported ${summary} in ${((Date.now() - started) / 1000).toFixed(1)} s (peak memory ${peakMiB} MiB)`,
  );
}

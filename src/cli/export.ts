import { createWriteStream, renameSync, rmSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { DealRoomClient } from '../../packages/client/index.js';
import { csvRow } from '../core/csv.ts';
import { UsageError } from './context.ts';
import { EXPORT_USAGE } from './usage.ts';

const RESOURCES = ['viewers', 'documents', 'links', 'analytics'] as const;
type Resource = (typeof RESOURCES)[number];

const COLUMNS: Record<Exclude<Resource, 'analytics'>, string[]> = {
  viewers: [
    'id',
    'email',
    'name',
    'firstViewedAt',
    'lastViewedAt',
    'totalViews',
    'totalDurationSeconds',
    'documentsViewed',
    'linkName',
  ],
  documents: [
    'id',
    'name',
    'displayName',
    'sourceType',
    'pageCount',
    'status',
    'position',
    'createdAt',
    'updatedAt',
  ],
  links: [
    'id',
    'name',
    'shortId',
    'url',
    'isActive',
    'requiresEmail',
    'requiresPassword',
    'expiresAt',
    'totalClicks',
    'createdAt',
  ],
};

/**
 * Streams every page of a room's viewers, documents or links (or its analytics) through the
 * API client, as CSV for spreadsheets or as JSON. Rows are written as pages arrive, so an
 * export of any size runs in constant memory.
 */
export async function exportCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      room: { type: 'string' },
      format: { type: 'string', default: 'csv' },
      period: { type: 'string' },
      output: { type: 'string' },
      'api-key': { type: 'string' },
      'base-url': { type: 'string' },
    },
  });
  const resource = positionals[0] as Resource | undefined;
  if (!resource || !RESOURCES.includes(resource) || positionals.length !== 1)
    throw new UsageError(EXPORT_USAGE);
  if (!values.room) throw new UsageError(`--room is required\n${EXPORT_USAGE}`);
  if (values.format !== 'csv' && values.format !== 'json')
    throw new UsageError('--format must be csv or json');
  const apiKey = values['api-key'] ?? env.DEALROOM_API_KEY;
  if (!apiKey) throw new UsageError('an API key is required: --api-key KEY or DEALROOM_API_KEY');
  const client = new DealRoomClient({ apiKey, baseUrl: values['base-url'] ?? env.DEALROOM_BASE_URL });
  // A file is written beside its name and renamed into place only when whole: a failed
  // export leaves no file (and never a header-only CSV) behind.
  const partial = values.output ? `${values.output}.${process.pid}.partial` : undefined;
  const out: Writable = partial ? createWriteStream(partial, { flags: 'wx', mode: 0o600 }) : process.stdout;
  try {
    await writeExport(client, resource, values.room, values.format, values.period, out);
    if (partial && values.output) {
      await new Promise<void>((resolve, reject) =>
        out.end((err?: Error | null) => (err ? reject(err) : resolve())),
      );
      renameSync(partial, values.output);
    }
  } catch (err) {
    if (partial) {
      out.destroy();
      rmSync(partial, { force: true });
    }
    throw err;
  }
}

async function writeExport(
  client: DealRoomClient,
  resource: Resource,
  room: string,
  format: string,
  periodValue: string | undefined,
  out: Writable,
): Promise<void> {
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (out.write(text, (err) => (err ? reject(err) : undefined))) resolve();
      else out.once('drain', resolve);
    });

  if (resource === 'analytics') {
    const period = periodValue as '7d' | '30d' | '90d' | 'all' | undefined;
    const analytics = await client.analytics.get(room, period ? { period } : {});
    if (format === 'json') await write(`${JSON.stringify(analytics, null, 2)}\n`);
    else {
      // A spreadsheet wants one table: the daily series, each row with the room and period.
      await write(csvRow(['dealRoomId', 'period', 'date', 'views']));
      for (const day of analytics.viewsOverTime)
        await write(csvRow([analytics.dealRoomId, analytics.period, day.date, day.views]));
    }
    return;
  }
  const items = client[resource].list(room) as AsyncIterable<Record<string, unknown>>;
  const columns = COLUMNS[resource];
  if (format === 'csv') {
    await write(csvRow(columns));
    for await (const item of items) await write(csvRow(columns.map((c) => item[c])));
    return;
  }
  let first = true;
  await write('[');
  for await (const item of items) {
    await write(`${first ? '\n' : ',\n'}  ${JSON.stringify(item)}`);
    first = false;
  }
  await write(first ? ']\n' : '\n]\n');
}

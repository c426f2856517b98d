import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { csvRow } from '../core/csv.ts';

/**
 * A table as CSV, streamed: the header row, then each row as the source gives it (a page of
 * rows at a time for a large table), formula-safe (core/csv.ts).
 */
export function sendCsv(
  reply: FastifyReply,
  name: string,
  header: string[],
  rows: Iterable<unknown[]> | AsyncIterable<unknown[]>,
): FastifyReply {
  async function* lines() {
    yield csvRow(header);
    for await (const row of rows) yield csvRow(row);
  }
  return reply
    .type('text/csv; charset=utf-8')
    .header('Content-Disposition', `attachment; filename="${name.replace(/[^\w.-]+/g, '_')}.csv"`)
    .send(Readable.from(lines()));
}

/** Every row of a keyset- or offset-paged query, a page at a time. */
export async function* paged<T>(pageSize: number, page: (offset: number, limit: number) => Promise<T[]>) {
  for (let offset = 0; ; offset += pageSize) {
    const rows = await page(offset, pageSize);
    yield* rows;
    if (rows.length < pageSize) return;
  }
}

import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import parser from 'stream-json';
import { ImportError, RECORD_TYPES, type RecordType } from './records.ts';

/** One raw record as it stands in the input, with where it stands. */
export interface RawRecord {
  type: RecordType;
  raw: unknown;
  where: string;
}

const SECTIONS: Record<string, RecordType> = {
  teams: 'team',
  dealRooms: 'dealRoom',
  documents: 'document',
  links: 'link',
  visits: 'visit',
  views: 'view',
  downloads: 'download',
};

/** Records in the order they stand in the input, a batch at a time (one per chunk read). */
export type RecordBatches = AsyncIterable<readonly RawRecord[]> | Iterable<readonly RawRecord[]>;

export function readImportFile(path: string): AsyncGenerator<RawRecord[]> {
  if (/\.ndjson$|\.jsonl$/i.test(path)) return readNdjson(createReadStream(path));
  if (/\.json$/i.test(path)) return readJson(createReadStream(path));
  throw new ImportError(path, undefined, 'the file name must end in .json or .ndjson');
}

/** The longest NDJSON line accepted: a record is a few hundred bytes. */
export const MAX_LINE_BYTES = 1 << 20;

/**
 * One record a line, each with its "type"; blank lines are skipped. The records before a bad
 * line are handed on before its error, so the first error in the input is the one reported.
 */
export async function* readNdjson(input: Readable): AsyncGenerator<RawRecord[]> {
  let number = 0;
  for await (const lines of readLines(input, MAX_LINE_BYTES)) {
    const records: RawRecord[] = [];
    for (const line of lines) {
      number++;
      if (line.trim() === '') continue;
      const where = `line ${number}`;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        if (records.length > 0) yield records;
        throw new ImportError(where, undefined, 'is not valid JSON');
      }
      const type = (raw as { type?: unknown } | null)?.type;
      if (typeof type !== 'string' || !(RECORD_TYPES as readonly string[]).includes(type)) {
        if (records.length > 0) yield records;
        throw new ImportError(where, 'type', `must be one of: ${RECORD_TYPES.join(', ')}`);
      }
      records.push({ type: type as RecordType, raw, where });
    }
    if (records.length > 0) yield records;
  }
}

/**
 * Lines of a stream, each without its line ending (LF or CRLF), a batch per chunk read.
 * Chunks are pulled one at a time, so a slow consumer holds the reading back instead of
 * lines piling up in memory; a line longer than `maxBytes` and any read error become an
 * ImportError naming the line, after the lines before it.
 */
export async function* readLines(input: Readable, maxBytes: number): AsyncGenerator<string[]> {
  let number = 1;
  let carry: Buffer[] = [];
  let carried = 0;
  let lines: string[] = [];
  const tooLong = () =>
    new ImportError(`line ${number}`, undefined, `is longer than ${maxBytes} bytes; is this an NDJSON file?`);
  const text = (parts: Buffer[]) => {
    const line = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    const end = line.length > 0 && line[line.length - 1] === 13 ? line.length - 1 : line.length;
    return line.toString('utf8', 0, end);
  };
  let failure: ImportError | undefined;
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
        if (carried + nl - start > maxBytes) throw tooLong();
        const piece = chunk.subarray(start, nl);
        lines.push(carried === 0 ? text([piece]) : text([...carry, piece]));
        carry = [];
        carried = 0;
        number++;
        start = nl + 1;
      }
      if (start < chunk.length) {
        carried += chunk.length - start;
        if (carried > maxBytes) throw tooLong();
        carry.push(chunk.subarray(start));
      }
      if (lines.length > 0) {
        yield lines;
        lines = [];
      }
    }
  } catch (err) {
    failure =
      err instanceof ImportError
        ? err
        : new ImportError(
            `line ${number}`,
            undefined,
            `could not be read (${(err as NodeJS.ErrnoException).code ?? 'read error'})`,
          );
  }
  if (lines.length > 0) yield lines;
  if (failure) throw failure;
  if (carried > 0) yield [text(carry)];
}

const JSON_BATCH = 500;

interface Token {
  name: string;
  value?: string;
}

/**
 * `{ "teams": [...], "dealRooms": [...], ... }`, streamed: each array element is assembled
 * from parser tokens and handed on in batches of JSON_BATCH, so the file never sits in
 * memory whole.
 */
export async function* readJson(input: Readable): AsyncGenerator<RawRecord[]> {
  // Packed values only: keys, strings and numbers arrive whole, one token each.
  const tokens = input.pipe(parser({ streamValues: false }));
  // Values under construction: [container, key of the next value in an object].
  const stack: { value: unknown[] | Record<string, unknown>; key?: string }[] = [];
  let depth = 0;
  let started = false;
  let section: RecordType | undefined;
  let index = 0;
  let records: RawRecord[] = [];

  const place = (value: unknown): unknown => {
    const top = stack[stack.length - 1];
    if (!top) return value;
    if (Array.isArray(top.value)) top.value.push(value);
    else if (top.key !== undefined) top.value[top.key] = value;
    return undefined;
  };

  try {
    for await (const token of tokens as AsyncIterable<Token>) {
      if (depth === 0) {
        if (token.name !== 'startObject') {
          throw new ImportError(
            'the file',
            undefined,
            'must be a JSON object of arrays, e.g. { "teams": [...] }',
          );
        }
        depth = 1;
        started = true;
        continue;
      }
      if (depth === 1) {
        if (token.name === 'keyValue') {
          const type = SECTIONS[token.value ?? ''];
          if (!type) {
            throw new ImportError(
              `section "${token.value}"`,
              undefined,
              `is not one of: ${Object.keys(SECTIONS).join(', ')}`,
            );
          }
          section = type;
          index = 0;
        } else if (token.name === 'startArray') {
          depth = 2;
        } else if (token.name === 'endObject') {
          depth = 0;
        } else {
          throw new ImportError(`section "${sectionName(section)}"`, undefined, 'must be an array');
        }
        continue;
      }
      if (depth === 2 && stack.length === 0 && token.name === 'endArray') {
        depth = 1;
        continue;
      }
      const done = assemble(token, stack, place);
      if (done !== undefined && stack.length === 0 && section) {
        records.push({ type: section, raw: done.value, where: `${sectionName(section)}[${index}]` });
        index++;
        if (records.length >= JSON_BATCH) {
          yield records;
          records = [];
        }
      }
    }
  } catch (err) {
    // The records before the error go first, so the first error in the input is the one reported.
    if (records.length > 0) yield records;
    if (err instanceof ImportError) throw err;
    const where = section ? `${sectionName(section)}[${index}]` : 'the file';
    throw new ImportError(where, undefined, 'is not valid JSON');
  }
  if (records.length > 0) yield records;
  if (!started || depth !== 0)
    throw new ImportError('the file', undefined, 'ends before the JSON is complete');
}

/** Applies one token; returns the finished top-level value when one completes. */
function assemble(
  token: Token,
  stack: { value: unknown[] | Record<string, unknown>; key?: string }[],
  place: (value: unknown) => unknown,
): { value: unknown } | undefined {
  const finish = (value: unknown) => {
    if (stack.length === 0) return { value };
    place(value);
    return undefined;
  };
  switch (token.name) {
    case 'startObject':
      stack.push({ value: {} });
      return undefined;
    case 'startArray':
      stack.push({ value: [] });
      return undefined;
    case 'endObject':
    case 'endArray': {
      const closed = stack.pop();
      return finish(closed?.value);
    }
    case 'keyValue': {
      const top = stack[stack.length - 1];
      if (top) top.key = token.value;
      return undefined;
    }
    case 'stringValue':
      return finish(token.value);
    case 'numberValue':
      return finish(Number(token.value));
    case 'trueValue':
      return finish(true);
    case 'falseValue':
      return finish(false);
    case 'nullValue':
      return finish(null);
    default:
      // startKey/stringChunk... do not occur with packed keys and strings.
      return undefined;
  }
}

function sectionName(type: RecordType | undefined): string {
  return Object.entries(SECTIONS).find(([, t]) => t === type)?.[0] ?? 'records';
}

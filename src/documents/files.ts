import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../core/errors.ts';
import type { Queryable } from '../db/database.ts';
import { isAlive } from '../db/lock.ts';
import type { FileWork } from '../rendering/pool.ts';

/** What a document's file may be, recognised by its first bytes whatever its declared type. */
export type FileType = 'application/pdf' | 'image/png' | 'image/jpeg';

/** Stored in pieces this large: no statement, and no buffer, holds a whole file. */
export const CHUNK_BYTES = 1024 * 1024;
export const DEFAULT_FILE_MAX_BYTES = 100 * 1024 * 1024;

export function sniffFileType(head: Uint8Array): FileType | undefined {
  const starts = (...bytes: number[]) => bytes.every((b, i) => head[i] === b);
  if (starts(0x25, 0x50, 0x44, 0x46, 0x2d)) return 'application/pdf'; // %PDF-
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  return undefined;
}

export const unsupportedFile = () =>
  new ApiError('unsupported_media_type', 'The file must be a PDF, PNG or JPEG (recognised by its content)');
export const fileTooLarge = (maxBytes: number) =>
  new ApiError('payload_too_large', `The file must be at most ${maxBytes} bytes`);

/** An upload received into a temporary file: checked, measured and counted before any write. */
export interface ReceivedFile {
  path: string;
  type: FileType;
  sizeBytes: number;
  sha256: string;
  pageCount: number;
  discard(): Promise<void>;
}

/** What receiving a file needs: the largest accepted, and the threads that may read its contents. */
export interface Receiving {
  maxBytes: number;
  work: FileWork;
}

/**
 * Receives an upload as it streams in, into a temporary file of this process's own (0600):
 * refused as soon as its first bytes are of no accepted type (415) or it passes `maxBytes`
 * (413), so a refused upload writes nothing that stays. Its pages are counted in a file
 * thread, within the limits (422 past them: rendering/pool.ts); an image is one page.
 */
export async function receiveFile(body: Readable, { maxBytes, work }: Receiving): Promise<ReceivedFile> {
  const path = join(await uploadFolder(), randomUUID());
  const discard = () => rm(path, { force: true });
  const hash = createHash('sha256');
  let size = 0;
  let head = Buffer.alloc(0);
  try {
    await pipeline(
      body,
      async function* check(source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          if (size > maxBytes) throw fileTooLarge(maxBytes);
          if (head.length < 8) {
            head = Buffer.concat([head, chunk.subarray(0, 8 - head.length)]);
            if (head.length >= 8 && !sniffFileType(head)) throw unsupportedFile();
          }
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(path, { mode: 0o600 }),
    );
    const type = sniffFileType(head);
    if (!type || size === 0) throw unsupportedFile();
    const { pageCount } = await work.inspect(path, type);
    return { path, type, sizeBytes: size, sha256: hash.digest('hex'), pageCount, discard };
  } catch (err) {
    await discard();
    throw err;
  }
}

/**
 * A received file as the document's new version (its newest is its file), chunk by chunk, in
 * the caller's transaction, which holds the document's row. Versions never change: what was
 * read of an earlier one stays whole. Its pages are rendered afterwards (rendering/renderer.ts).
 */
export async function writeVersion(
  tx: Queryable,
  documentId: string,
  file: ReceivedFile,
  at: Date,
): Promise<string> {
  const id = randomUUID();
  const chunks = Math.ceil(file.sizeBytes / CHUNK_BYTES);
  await tx.query(
    `INSERT INTO document_versions (id, document_id, version, content_type, size_bytes, sha256, chunks,
                                    page_count, uploaded_at)
     SELECT $1, $2, coalesce(max(version), 0) + 1, $3, $4, $5, $6, $7, $8
       FROM document_versions WHERE document_id = $2`,
    [id, documentId, file.type, file.sizeBytes, file.sha256, chunks, file.pageCount, at],
  );
  const handle = await open(file.path);
  try {
    for (let seq = 0; seq < chunks; seq++) {
      const bytes = Buffer.alloc(Math.min(CHUNK_BYTES, file.sizeBytes - seq * CHUNK_BYTES));
      await handle.read(bytes, 0, bytes.length, seq * CHUNK_BYTES);
      await tx.query('INSERT INTO version_chunks (version_id, seq, bytes) VALUES ($1, $2, $3)', [
        id,
        seq,
        bytes,
      ]);
    }
  } finally {
    await handle.close();
  }
  return id;
}

/** A document's file: its newest version. */
export interface StoredFile {
  versionId: string;
  version: number;
  type: FileType;
  sizeBytes: number;
  sha256: string;
  chunks: number;
  pageCount: number;
  pagesReady: number;
}

export async function storedFile(db: Queryable, documentId: string): Promise<StoredFile | undefined> {
  const [row] = await db.query<{
    version_id: string;
    version: number;
    content_type: FileType;
    size_bytes: string | number;
    sha256: string;
    chunks: number;
    page_count: number;
    pages_ready: number;
  }>(
    `SELECT version_id, version, content_type, size_bytes, sha256, chunks, page_count, pages_ready
       FROM document_files WHERE document_id = $1`,
    [documentId],
  );
  if (!row) return undefined;
  return {
    versionId: row.version_id,
    version: row.version,
    type: row.content_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    chunks: row.chunks,
    pageCount: row.page_count,
    pagesReady: row.pages_ready,
  };
}

/** A version's bytes, one chunk (one query) at a time: a version never changes, so they are one file's. */
export async function* fileChunks(
  db: Queryable,
  file: Pick<StoredFile, 'versionId' | 'chunks'>,
): AsyncGenerator<Buffer> {
  for (let seq = 0; seq < file.chunks; seq++) {
    const [row] = await db.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM version_chunks WHERE version_id = $1 AND seq = $2',
      [file.versionId, seq],
    );
    if (!row) throw new Error(`chunk ${seq} of a stored file is missing`);
    yield Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  }
}

/** Runs `work` on a copy of a version in this process's folder, removed after. */
export async function withLocalCopy<T>(
  db: Queryable,
  file: Pick<StoredFile, 'versionId' | 'chunks'>,
  work: (path: string) => Promise<T>,
): Promise<T> {
  const path = join(await uploadFolder(), `copy-${randomUUID()}`);
  try {
    const handle = await open(path, 'w', 0o600);
    try {
      for await (const chunk of fileChunks(db, file)) await handle.write(chunk);
    } finally {
      await handle.close();
    }
    return await work(path);
  } finally {
    await rm(path, { force: true });
  }
}

/** Where every process keeps its files in transit, one folder each, named by its process id. */
const TRANSIT_ROOT = join(tmpdir(), 'dealroom-files');

/**
 * This process's folder for files in transit (uploads, copies being rendered or stamped),
 * under the system's temporary folder: removed with whatever it holds when a later process
 * starts and finds this one gone (removeStaleFolders), so a file left by a killed process does
 * not stay.
 */
export async function uploadFolder(): Promise<string> {
  folder ??= (async () => {
    const own = join(TRANSIT_ROOT, String(process.pid));
    await mkdir(own, { recursive: true, mode: 0o700 });
    return own;
  })();
  return folder;
}
let folder: Promise<string> | undefined;

/** Removes the folders in transit of processes that are gone; returns how many (`dealroom serve` calls it as it starts). */
export async function removeStaleFolders(): Promise<number> {
  await mkdir(TRANSIT_ROOT, { recursive: true, mode: 0o700 });
  let removed = 0;
  for (const entry of await readdir(TRANSIT_ROOT)) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) {
      await rm(join(TRANSIT_ROOT, entry), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

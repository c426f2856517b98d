import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../core/errors.ts';
import type { Queryable } from '../db/database.ts';

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

/**
 * Receives an upload as it streams in, into a temporary file of this process's own (0600):
 * refused as soon as its first bytes are of no accepted type (415) or it passes `maxBytes`
 * (413), so a refused upload writes nothing that stays. A PDF's pages are counted by reading
 * only the parts of the file that say it (pdf.js, by ranges); an image is one page.
 */
export async function receiveFile(body: Readable, maxBytes: number): Promise<ReceivedFile> {
  const path = join(tmpdir(), `dealroom-upload-${randomUUID()}`);
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
    const pageCount = type === 'application/pdf' ? await countPdfPages(path, size) : 1;
    return { path, type, sizeBytes: size, sha256: hash.digest('hex'), pageCount, discard };
  } catch (err) {
    await discard();
    throw err;
  }
}

/** The pages of a PDF, read by pdf.js through ranges of the file (its cross-reference and page tree only). */
async function countPdfPages(path: string, size: number): Promise<number> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const file = await open(path);
  try {
    const transport = new pdfjs.PDFDataRangeTransport(size, new Uint8Array(0));
    transport.requestDataRange = (begin: number, end: number) => {
      const bytes = new Uint8Array(end - begin);
      file.read(bytes, 0, end - begin, begin).then(
        () => transport.onDataRange(begin, bytes),
        () => transport.abort(),
      );
    };
    const task = pdfjs.getDocument({
      range: transport,
      length: size,
      rangeChunkSize: 64 * 1024,
      disableAutoFetch: true,
      disableStream: true,
      isEvalSupported: false,
      stopAtErrors: true,
      verbosity: 0,
    });
    try {
      const pdf = await task.promise;
      if (pdf.numPages < 1) throw unsupportedFile();
      return pdf.numPages;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      throw new ApiError('unsupported_media_type', 'The file starts like a PDF but cannot be read as one');
    } finally {
      await task.destroy();
    }
  } finally {
    await file.close();
  }
}

/** Replaces a document's file with a received one, chunk by chunk, in the caller's transaction. */
export async function writeFileRows(
  tx: Queryable,
  documentId: string,
  file: ReceivedFile,
  at: Date,
): Promise<void> {
  await tx.query('DELETE FROM document_files WHERE document_id = $1', [documentId]);
  const chunks = Math.ceil(file.sizeBytes / CHUNK_BYTES);
  await tx.query(
    `INSERT INTO document_files (document_id, content_type, size_bytes, sha256, chunks, uploaded_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [documentId, file.type, file.sizeBytes, file.sha256, chunks, at],
  );
  const handle = await open(file.path);
  try {
    for (let seq = 0; seq < chunks; seq++) {
      const bytes = Buffer.alloc(Math.min(CHUNK_BYTES, file.sizeBytes - seq * CHUNK_BYTES));
      await handle.read(bytes, 0, bytes.length, seq * CHUNK_BYTES);
      await tx.query('INSERT INTO document_file_chunks (document_id, seq, bytes) VALUES ($1, $2, $3)', [
        documentId,
        seq,
        bytes,
      ]);
    }
  } finally {
    await handle.close();
  }
}

export interface StoredFile {
  type: FileType;
  sizeBytes: number;
  sha256: string;
  chunks: number;
}

export async function storedFile(db: Queryable, documentId: string): Promise<StoredFile | undefined> {
  const [row] = await db.query<{
    content_type: FileType;
    size_bytes: string | number;
    sha256: string;
    chunks: number;
  }>('SELECT content_type, size_bytes, sha256, chunks FROM document_files WHERE document_id = $1', [
    documentId,
  ]);
  if (!row) return undefined;
  return {
    type: row.content_type,
    sizeBytes: Number(row.size_bytes),
    sha256: row.sha256,
    chunks: row.chunks,
  };
}

/** A stored file's bytes, one chunk (one query) at a time. */
export async function* fileChunks(db: Queryable, documentId: string, chunks: number): AsyncGenerator<Buffer> {
  for (let seq = 0; seq < chunks; seq++) {
    const [row] = await db.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM document_file_chunks WHERE document_id = $1 AND seq = $2',
      [documentId, seq],
    );
    if (!row) throw new Error(`chunk ${seq} of a stored file is missing`);
    yield Buffer.from(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength);
  }
}

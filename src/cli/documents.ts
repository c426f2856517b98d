import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isUuid } from '../core/ids.ts';
import { storeDocumentFile } from '../documents/commands.ts';
import { fileTooLarge, receiveFile } from '../documents/files.ts';
import { createFileWork } from '../rendering/pool.ts';
import { type CommandContext, UsageError, writeContext } from './context.ts';
import { DOCUMENTS_USAGE } from './usage.ts';

/** `dealroom documents upload DOC_ID FILE`: what `PUT /documents/{id}/file` does, from a file on disk. */
export async function documentsCommand(ctx: CommandContext, args: string[]): Promise<void> {
  const [action, id, path, ...rest] = args;
  if (action !== 'upload') throw new UsageError(DOCUMENTS_USAGE);
  if (!id || !path || rest.length > 0) {
    throw new UsageError(`give the document's id and the file\n${DOCUMENTS_USAGE}`);
  }
  if (!isUuid(id)) throw new UsageError(`${id} is not a document id (a UUID)`);
  const found = await stat(path).catch(() => undefined);
  if (!found?.isFile()) throw new UsageError(`${path} is not a file`);
  const maxBytes = ctx.config.web.fileMaxBytes;
  if (found.size > maxBytes) throw fileTooLarge(maxBytes);
  const work = createFileWork(ctx.config.files);
  try {
    const file = await receiveFile(createReadStream(path), { maxBytes, work });
    try {
      const document = await storeDocumentFile(writeContext(ctx), id.toLowerCase(), file);
      ctx.err(`stored ${file.sizeBytes} bytes (${file.type}) as the content of ${document.name}`);
      ctx.err('its pages are drawn as images by the running service (`dealroom serve`)');
      ctx.out(`${document.pageCount} ${document.pageCount === 1 ? 'page' : 'pages'}`);
    } finally {
      await file.discard();
    }
  } finally {
    await work.close();
  }
}

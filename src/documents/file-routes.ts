import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { AnalyticsQuery } from '../analytics/schemas.ts';
import { fail } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import { answers } from '../core/responses.ts';
import { Data, IdParams } from '../core/schemas.ts';
import type { AdminRouteDeps, TypedFastify } from '../routing/types.ts';
import { storeDocumentFile } from './commands.ts';
import { fileChunks, fileTooLarge, receiveFile, storedFile } from './files.ts';
import { pageFigures } from './pages.ts';
import { ManagedDocumentSchema, PageFiguresSchema } from './schemas.ts';

const notFound = () => fail('documentNotFound');

/** The management API's document files and page figures (contract.md section 7). */
export function documentFileRoutes(
  app: TypedFastify,
  { db, write, clock, fileMaxBytes, files: work }: AdminRouteDeps,
): void {
  const tags = ['Documents'];
  app.register(async (files) => {
    // The raw bytes, whatever the declared type: the content decides (files.ts).
    files.removeAllContentTypeParsers();
    files.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    files.put(
      '/documents/:id/file',
      {
        bodyLimit: Number.MAX_SAFE_INTEGER,
        schema: {
          operationId: 'putDocumentFile',
          tags,
          summary: "Store a document's file: PDF, PNG or JPEG, raw bytes (document.updated)",
          description:
            "The type is recognised by the content, not the Content-Type. `pageCount` becomes the PDF's pages (an image is 1). " +
            'Larger than FILE_MAX_BYTES: 413. Any other content: 415. A refused upload leaves the stored file as it was.',
          params: IdParams,
          response: answers(200, Data(ManagedDocumentSchema), 404, 413, 415),
        },
      },
      async (request) => {
        const { id } = request.params as { id: string };
        if (!isUuid(id)) throw notFound();
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > fileMaxBytes) throw fileTooLarge(fileMaxBytes);
        const body = request.body as unknown;
        const stream = body instanceof Readable ? body : Readable.from([]);
        const file = await receiveFile(stream, { maxBytes: fileMaxBytes, work });
        try {
          return { data: await write(request, (ctx) => storeDocumentFile(ctx, id, file)) };
        } finally {
          await file.discard();
        }
      },
    );
  });

  app.get(
    '/documents/:id/file',
    {
      schema: {
        operationId: 'getDocumentFile',
        tags,
        summary: "A document's file, with its type",
        params: IdParams,
        response: answers(200, Type.Any({ description: 'The bytes' }), 404),
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const file = isUuid(id) ? await storedFile(db, id) : undefined;
      if (!file) throw fail('documentHasNoFile');
      return reply
        .type(file.type)
        .header('Content-Length', String(file.sizeBytes))
        .send(Readable.from(fileChunks(db, file)));
    },
  );

  app.get(
    '/documents/:id/pages',
    {
      schema: {
        operationId: 'getDocumentPages',
        tags,
        summary: "A document's page figures: views, completion, each page's active time",
        params: IdParams,
        querystring: AnalyticsQuery,
        response: answers(200, Data(PageFiguresSchema), 400, 404),
      },
    },
    async (request) => {
      const { id } = request.params;
      const figures = isUuid(id)
        ? await pageFigures(db, id, request.query.period ?? '30d', clock.now())
        : undefined;
      if (!figures) throw notFound();
      return { data: figures };
    },
  );
}

import { Readable } from 'node:stream';
import type { Static } from '@sinclair/typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { isUuid } from '../core/ids.ts';
import { fileChunks, type StoredFile, storedFile, withLocalCopy } from '../documents/files.ts';
import { PAGE_WIDTHS } from '../rendering/pool.ts';
import type { TypedFastify } from '../routing/types.ts';
import { recordDownload } from '../tracking/commands.ts';
import type { ViewerInput } from '../tracking/viewers.ts';
import type { DocumentParams, LinkPageDeps, OpenDocument } from './deps.ts';
import { asPage, linkRefusal, NO_DOCUMENT } from './errors.ts';
import type { LinkPageAction } from './limits.ts';
import {
  type PublicLink,
  pageImage,
  type ShownDocument,
  type ShownLink,
  type ShownSelection,
} from './repo.ts';
import type { LinkSession } from './session.ts';

const PageQuery = Type.Object({
  w: Type.Optional(Type.Union(PAGE_WIDTHS.map((w) => Type.Literal(String(w))))),
  v: Type.Optional(Type.String({ maxLength: 12 })),
});
/** Watermarked page images kept per process, so a page scrolled past again is not drawn again. */
const WATERMARKED_CACHE_BYTES = 64 * 1024 * 1024;
/** Page images as stored, kept per process: a version never changes, so they are always exact. */
const PAGE_CACHE_BYTES = 64 * 1024 * 1024;

/** What the document addresses need of the link page's routes (routes.ts): the link, its session, its limits. */
export interface LinkAccess {
  openLink(shortId: string, shown?: ShownSelection): Promise<ShownLink>;
  sessionOf(request: FastifyRequest, link: PublicLink): Promise<LinkSession | undefined>;
  documentFor(
    request: FastifyRequest,
    params: Static<typeof DocumentParams>,
    reply: FastifyReply,
  ): Promise<OpenDocument>;
  limit(action: LinkPageAction, request: FastifyRequest): Promise<void>;
  viewerOf(session: LinkSession, visitorId: string): ViewerInput;
}

const PageImageParams = Type.Object({
  shortId: Type.String(),
  documentId: Type.String(),
  page: Type.String({ pattern: '^[1-9][0-9]{0,4}$' }),
});
const DownloadParams = Type.Object({ shortId: Type.String(), documentId: Type.String() });

/** A document's page images and its download, on the link page (a plugin's part, under /v). */
export function documentRoutes(app: TypedFastify, deps: LinkPageDeps, access: LinkAccess): void {
  const { write } = deps;
  const { openLink, sessionOf, documentFor, limit, viewerOf } = access;

  // Page images: the only form in which a document reaches the viewer's browser. Only for
  // the session that passed this link's gate (no visit is counted by an image); with the
  // watermark on, the viewer's email, the time they came and the link's name are drawn into
  // the pixels, in a file thread, and kept for the next request of the same image.
  const marked = new LRUCache<string, Uint8Array, { image: Uint8Array; lines: string[] }>({
    maxSize: WATERMARKED_CACHE_BYTES,
    sizeCalculation: (image) => Math.max(1, image.byteLength),
    fetchMethod: (_key, _stale, { context }) => deps.files.watermark(context.image, context.lines),
  });
  const images = new LRUCache<string, Uint8Array, { versionId: string; page: number; width: number }>({
    maxSize: PAGE_CACHE_BYTES,
    sizeCalculation: (image) => Math.max(1, image.byteLength),
    fetchMethod: async (_key, _stale, { context }) =>
      (await pageImage(write.db, context.versionId, context.page, context.width)) ?? new Uint8Array(),
  });
  app.get(
    '/:shortId/d/:documentId/pages/:page',
    { schema: { params: PageImageParams, querystring: PageQuery } },
    async (request, reply) => {
      const { shortId, documentId } = request.params;
      const page = Number(request.params.page);
      const width = Number(request.query.w ?? 1600);
      const link = isUuid(documentId) ? await openLink(shortId, { id: documentId.toLowerCase() }) : undefined;
      const session = link ? await sessionOf(request, link) : undefined;
      const [document] = link?.documents ?? [];
      if (!link || !session || !document) throw NO_DOCUMENT();
      // Versions never change: a page's image is kept per process once read (64 MB at most).
      const versionId = document.version_id;
      if (!versionId || page > document.page_count) throw NO_DOCUMENT();
      if (page > (document.pages_ready ?? 0)) {
        // Not drawn yet: the viewer asks again after Retry-After; its document is drawn next.
        deps.wantPages?.(versionId);
        return reply.code(503).header('Retry-After', '2').header('Cache-Control', 'no-store').send();
      }
      const stored = await images.fetch(`${versionId}/${page}/${width}`, {
        context: { versionId, page, width },
      });
      if (!stored || stored.byteLength === 0) throw linkRefusal('pageNotDrawn');
      let image = stored;
      if (link.watermark) {
        const lines = watermarkLines(session, link);
        const key = `${versionId}/${page}/${width}/${lines.join('\n')}`;
        try {
          image = (await marked.fetch(key, { context: { image, lines } })) ?? image;
        } catch (err) {
          request.log.warn({ err }, 'a page image could not be watermarked');
          throw linkRefusal('pageNotDrawn');
        }
      }
      return reply
        .type('image/webp')
        .header('Cache-Control', 'private, max-age=3600')
        .header('Content-Disposition', 'inline')
        .send(Buffer.from(image.buffer, image.byteOffset, image.byteLength));
    },
  );

  app.get(
    '/:shortId/d/:documentId/download',
    { schema: { params: DownloadParams } },
    async (request, reply) => {
      await limit('page', request);
      const { link, document, session, visitorId } = await documentFor(request, request.params, reply);
      const file = await storedFile(write.db, document.id);
      if (!file) throw NO_DOCUMENT();
      const record = async () => {
        try {
          return (
            await recordDownload(write, link.id, {
              documentId: document.id,
              viewer: viewerOf(session, visitorId),
            })
          ).allowed;
        } catch (err) {
          throw asPage(err);
        }
      };
      const refused = () =>
        linkRefusal('downloadsOff', {
          next: { href: `/v/${request.params.shortId}/d/${document.id}`, label: 'Read it online' },
        });
      // A refusal is recorded at once; a download only once its bytes are ready to go.
      if (!document.download_allowed) {
        await record();
        throw refused();
      }
      let stamped: { bytes: Uint8Array; type: string } | undefined;
      if (link.watermark) {
        const lines = watermarkLines(session, link);
        stamped =
          file.type === 'application/pdf'
            ? {
                bytes: await withLocalCopy(write.db, file, (path) => deps.files.stamp(path, lines)).catch(
                  (err) => {
                    throw asPage(err);
                  },
                ),
                type: file.type,
              }
            : await watermarkedImage(file, lines);
      }
      if (!(await record())) throw refused();
      const type = stamped?.type ?? file.type;
      reply
        .type(type)
        .header('Cache-Control', 'private, no-store')
        .header('Content-Disposition', `attachment; filename="${fileName(document, type)}"`);
      if (stamped)
        return reply.send(
          Buffer.from(stamped.bytes.buffer, stamped.bytes.byteOffset, stamped.bytes.byteLength),
        );
      return reply
        .header('Content-Length', String(file.sizeBytes))
        .send(Readable.from(fileChunks(write.db, file)));
    },
  );

  /** An image document's download with the watermark: its page image, marked. */
  async function watermarkedImage(
    file: StoredFile,
    lines: string[],
  ): Promise<{ bytes: Uint8Array; type: string }> {
    const [found] = await write.db.query<{ bytes: Uint8Array }>(
      'SELECT bytes FROM page_images WHERE version_id = $1 AND page = 1 AND width = 1600',
      [file.versionId],
    );
    if (!found || found.bytes.byteLength === 0) throw linkRefusal('pageNotDrawn');
    try {
      return { bytes: await deps.files.watermark(found.bytes, lines), type: 'image/webp' };
    } catch (err) {
      throw asPage(err);
    }
  }
}

/** What a watermark says: who, since when (the time the gate was passed), through which link. */
function watermarkLines(session: LinkSession, link: PublicLink): string[] {
  const at = new Date((session.since ?? session.seen) * 1000);
  return [
    session.email ?? 'Anonymous viewer',
    `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    link.name,
  ];
}

function fileName(document: ShownDocument, type: string): string {
  const extension = { 'application/pdf': '.pdf', 'image/png': '.png', 'image/webp': '.webp' }[type] ?? '.jpg';
  const base =
    document.title
      .replace(/[^\w .()-]+/g, '_')
      .trim()
      .slice(0, 120) || 'document';
  return base.toLowerCase().endsWith(extension) ? base : `${base}${extension}`;
}

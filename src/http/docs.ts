import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import scalar from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

export const OPENAPI_PATH = '/v1/openapi.json';

/**
 * GET /v1/openapi.json (no key needed): the OpenAPI 3.1 document generated from the route
 * schemas. GET /docs: the API reference, rendered by Scalar from its npm package; its
 * fonts, telemetry and request proxy are off, so the page loads nothing from another host.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  const gzipped = new Map<string, Buffer>();
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/docs')) return payload;
    reply.header('X-Content-Type-Options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html') && typeof payload === 'string') {
      reply.header('Content-Security-Policy', docsPolicy(payload));
    }
    // The reference's script (about 3 MB) is the same for the life of the process: it is
    // compressed once, and browsers keep it for a day.
    if (
      type.startsWith('application/javascript') &&
      reply.statusCode === 200 &&
      typeof payload === 'string'
    ) {
      reply.header('Cache-Control', 'public, max-age=86400');
      reply.header('Vary', 'Accept-Encoding');
      if (!/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return payload;
      let body = gzipped.get(request.url);
      if (!body) {
        body = gzipSync(payload);
        gzipped.set(request.url, body);
      }
      reply.header('Content-Encoding', 'gzip');
      reply.removeHeader('content-length');
      return body;
    }
    return payload;
  });
  await app.register(scalar, {
    routePrefix: '/docs',
    logLevel: 'warn',
    configuration: {
      url: OPENAPI_PATH,
      title: 'Deal Room Analytics API reference',
      withDefaultFonts: false,
      telemetry: false,
      hideClientButton: true,
      hideTestRequestButton: false,
      showDeveloperTools: 'never',
      agent: { disabled: true },
      mcp: { disabled: true },
    } as never,
  });
}

/**
 * The page may load and connect to this origin only, and be framed by nobody. Its one inline
 * script (Scalar's start-up call) is allowed by its hash, computed from the page itself; the
 * reference injects its styles at run time, and draws a few icons as data: URLs.
 */
function docsPolicy(html: string): string {
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map(
    (match) =>
      `'sha256-${createHash('sha256')
        .update(match[1] ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'self'",
    `script-src 'self' ${inline.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
  ].join('; ');
}

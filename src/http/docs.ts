import { createHash } from 'node:crypto';
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
  app.addHook('onSend', async (request, reply, payload) => {
    if (!request.url.startsWith('/docs')) return payload;
    reply.header('X-Content-Type-Options', 'nosniff');
    const type = String(reply.getHeader('content-type') ?? '');
    if (type.startsWith('text/html') && typeof payload === 'string') {
      reply.header('Content-Security-Policy', docsPolicy(payload));
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

import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { getHtmlDocument } from '@scalar/core/libs/html-rendering';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const OPENAPI_PATH = '/v1/openapi.json';

/** Scalar's standalone script (about 3 MB), in the npm package of its Fastify plugin. */
const SCRIPT_FILE = join(
  dirname(createRequire(import.meta.url).resolve('@scalar/fastify-api-reference')),
  'js',
  'standalone.js',
);

/** Scalar's light theme with its muted text and method colours at 4.5:1 or more on its backgrounds. */
const READABLE_THEME = `.light-mode {
  --scalar-color-2: #555555;
  --scalar-color-3: #5e5e5e;
  --scalar-color-blue: #0b5cad;
  --scalar-color-green: #116329;
  --scalar-color-orange: #9a4400;
  --scalar-color-red: #b42318;
  --scalar-color-purple: #6b3fa0;
  --scalar-color-yellow: #735600;
}`;

/**
 * GET /v1/openapi.json (no key needed): the OpenAPI 3.1 document generated from the route
 * schemas. GET /docs: the API reference, rendered by Scalar's script from its npm package;
 * its fonts, telemetry and request proxy are off, so the page loads nothing from another host.
 *
 * The script is read from the package's file when asked for, not held by the process: as a
 * string it took 6.5 MB of every server's heap. Its gzipped form (under 1 MB) is made on the
 * first request that accepts it and kept.
 */
export async function registerDocs(app: FastifyInstance): Promise<void> {
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger());
  // The page's language, and the reference's light theme with text dark enough to read
  // (axe-core: its greys and method colours were under 4.5:1 on white).
  const page = getHtmlDocument({
    cdn: 'js/scalar.js',
    _integration: 'fastify',
    url: OPENAPI_PATH,
    pageTitle: 'Deal Room Analytics API reference',
    title: 'Deal Room Analytics API reference',
    withDefaultFonts: false,
    telemetry: false,
    hideClientButton: true,
    hideTestRequestButton: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    mcp: { disabled: true },
    customCss: READABLE_THEME,
  } as never).replace('<html>', '<html lang="en">');
  const policy = docsPolicy(page);
  let gzipped: Promise<Buffer> | undefined;
  const route = { schema: { hide: true }, logLevel: 'warn' } as const;
  const hardened = (reply: FastifyReply) => reply.header('X-Content-Type-Options', 'nosniff');

  app.get('/docs', route, (_request, reply) => hardened(reply).redirect('/docs/', 301));
  app.get('/docs/', route, (_request, reply) =>
    hardened(reply).header('Content-Security-Policy', policy).type('text/html; charset=utf-8').send(page),
  );
  app.get('/docs/js/scalar.js', route, async (request, reply) => {
    // The same for the life of the process, so browsers keep it for a day.
    hardened(reply)
      .type('application/javascript; charset=utf-8')
      .header('Cache-Control', 'public, max-age=86400')
      .header('Vary', 'Accept-Encoding');
    if (!/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) {
      return reply.send(createReadStream(SCRIPT_FILE));
    }
    gzipped ??= readFile(SCRIPT_FILE).then((script) => promisify(gzip)(script));
    const body = await gzipped.catch((err: unknown) => {
      gzipped = undefined;
      throw err;
    });
    return reply.header('Content-Encoding', 'gzip').send(body);
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

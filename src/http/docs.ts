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

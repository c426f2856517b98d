import { gunzipSync } from 'node:zlib';
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { useManagement } from '../testing/management.ts';
import { useApi } from '../testing/suite.ts';

type Json = Record<string, any>;
const OPERATIONS = [
  'listDealRooms',
  'getDealRoom',
  'listDocuments',
  'listLinks',
  'listViewers',
  'getAnalytics',
];

describe('OpenAPI document', () => {
  const s = useApi('embedded');
  const fetchDocument = async (): Promise<Json> => {
    const res = await s.api.get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return res.body;
  };
  /** The document with every $ref replaced by what it names, as a validating proxy reads it. */
  const fetchResolved = async (): Promise<Json> =>
    (await SwaggerParser.dereference(structuredClone(await fetchDocument()) as never)) as Json;

  it("serves the reference page's script gzipped when asked, cacheable for a day", async () => {
    const plain = await s.api.app.inject({ url: '/docs/js/scalar.js' });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    const zipped = await s.api.app.inject({
      url: '/docs/js/scalar.js',
      headers: { 'accept-encoding': 'br, gzip' },
    });
    expect(zipped.statusCode).toBe(200);
    expect(zipped.headers).toMatchObject({
      'content-encoding': 'gzip',
      'cache-control': 'public, max-age=86400',
      vary: 'Accept-Encoding',
    });
    expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
  });

  it('is served without a key and passes an OpenAPI 3.1 validator', async () => {
    const document = await fetchDocument();
    expect(document.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
  });

  it('describes the six operations, both key schemes and every query limit', async () => {
    const document = await fetchDocument();
    const operations = Object.values<Json>(document.paths).map((p) => p.get);
    expect(operations.map((o) => o.operationId).sort()).toEqual([...OPERATIONS].sort());
    expect(Object.keys(document.paths).every((p) => p.startsWith('/v1/'))).toBe(true);
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    expect(document.security).toEqual([{ bearerAuth: [] }, { apiKeyHeader: [] }]);
    const params = (id: string) => operations.find((o) => o.operationId === id).parameters as Json[];
    const param = (id: string, name: string): Json => params(id).find((p) => p.name === name) ?? {};
    expect(param('listDealRooms', 'status').schema.enum).toEqual(['active', 'archived']);
    expect(param('getAnalytics', 'period').schema.enum).toEqual(['7d', '30d', '90d', 'all']);
    expect(param('listViewers', 'per_page').description).toContain('above 100');
    // Typed for code generators: integers with their bounds and defaults, the id a UUID.
    expect(param('listViewers', 'page').schema).toEqual({
      type: 'integer',
      minimum: 1,
      default: 1,
      examples: [1],
    });
    expect(param('listViewers', 'per_page').schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    expect(param('getAnalytics', 'period').schema.default).toBe('30d');
    expect(param('getDealRoom', 'id')).toMatchObject({
      in: 'path',
      required: true,
      schema: { type: 'string', format: 'uuid' },
    });
  });

  it('names the shared shapes once, for code generators, and refers to them everywhere', async () => {
    const document = await fetchDocument();
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'Analytics',
        'DealRoom',
        'DealRoomDetail',
        'Document',
        'Error',
        'Link',
        'Pagination',
        'Viewer',
      ]),
    );
    const list = document.paths['/v1/deal-rooms'].get.responses['200'].content['application/json'].schema;
    expect(list.properties.data.items).toEqual({ $ref: '#/components/schemas/DealRoom' });
    expect(list.properties.meta.properties.pagination).toEqual({ $ref: '#/components/schemas/Pagination' });
    expect(
      document.webhooks['view.started'].post.requestBody.content['application/json'].schema,
    ).toBeDefined();
    // No named shape is written out anywhere but in components.
    const inline: string[] = [];
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      if (typeof (node as Json).title === 'string' && (node as Json).type === 'object')
        inline.push((node as Json).title);
      for (const value of Object.values(node)) visit(value);
    };
    visit(document.paths);
    visit(document.webhooks);
    expect(inline).toEqual([]);
  });

  it('documents every status with its body and headers', async () => {
    const document = await fetchResolved();
    for (const item of Object.values<Json>(document.paths)) {
      const { operationId, responses } = item.get;
      const statuses = Object.keys(responses).sort();
      const expected = ['200', '304', '401', '429', '500', '503'];
      if (operationId !== 'getDealRoom') expected.push('400');
      if (operationId !== 'listDealRooms') expected.push('404');
      expect(statuses, operationId).toEqual(expected.sort());
      expect(Object.keys(responses['200'].headers)).toEqual(
        expect.arrayContaining([
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'RateLimit-Policy',
          'RateLimit',
          'ETag',
        ]),
      );
      expect(responses['429'].headers['Retry-After']).toBeDefined();
      expect(responses['401'].headers['WWW-Authenticate']).toBeDefined();
      for (const status of ['401', '429', '500']) {
        const media = responses[status].content['application/json'];
        expect(media.schema.required).toEqual(['error', 'code']);
        expect(Object.keys(media.examples).length).toBeGreaterThan(0);
      }
    }
  });

  it('has examples that validate against their own schemas', async () => {
    const document = await fetchResolved();
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    let checked = 0;
    const visit = (node: unknown): void => {
      if (!node || typeof node !== 'object') return;
      const schema = node as Json;
      if (Array.isArray(schema.examples) && (schema.type === 'object' || schema.type === 'string')) {
        const validate = ajv.compile(schema);
        for (const example of schema.examples) {
          expect(
            validate(example),
            `${JSON.stringify(example).slice(0, 80)}: ${ajv.errorsText(validate.errors)}`,
          ).toBe(true);
          checked++;
        }
      }
      for (const value of Object.values(schema)) visit(value);
    };
    for (const item of Object.values<Json>(document.paths)) {
      for (const response of Object.values<Json>(item.get.responses)) {
        const media = response.content?.['application/json'];
        if (!media) continue;
        visit(media.schema);
        for (const example of Object.values<Json>(media.examples ?? {})) {
          expect(ajv.validate(media.schema, example.value)).toBe(true);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('gives linters and validating proxies what they look for: servers, typed examples, HEAD, error codes', async () => {
    const document = await fetchResolved();
    expect(document.servers).toEqual([{ url: '/', description: 'This server (PORT, default 8080)' }]);
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      expect(item.head?.operationId, path).toBe(`${item.get.operationId}Head`);
      expect(Object.values<Json>(item.head.responses).every((r) => r.content === undefined)).toBe(true);
      for (const parameter of item.get.parameters) {
        if (parameter.schema.type !== 'integer') continue;
        expect(typeof parameter.example, `${path} ${parameter.name}`).toBe('number');
        expect(parameter.schema.examples.every((e: unknown) => typeof e === 'number')).toBe(true);
      }
    }
    // The 405 that every other method gets is described once, with its Allow header.
    expect(document.components.responses.MethodNotAllowed.headers.Allow.schema.const).toBe('GET, HEAD');
    const refused = await s.api.app.inject({ method: 'POST', url: '/v1/deal-rooms' });
    expect(refused.statusCode).toBe(405);
    expect(refused.headers.allow).toBe('GET, HEAD');
    expect(refused.json()).toEqual(
      document.components.responses.MethodNotAllowed.content['application/json'].example,
    );
    const error = document.paths['/v1/deal-rooms'].get.responses['401'].content['application/json'].schema;
    expect(error.properties.code.enum).toEqual([
      'validation_error',
      'unauthorized',
      'download_denied',
      'not_found',
      'method_not_allowed',
      'conflict',
      // A document file's upload on the management API (contract.md section 7).
      'payload_too_large',
      'unsupported_media_type',
      // A file over the limits of rendering (contract.md section 7).
      'unprocessable_file',
      'rate_limit',
      'internal_error',
      'service_unavailable',
    ]);
  });
});

describe('management OpenAPI document', () => {
  const s = useManagement('embedded');

  it('validates, and names its tags, answers, ids, Idempotency-Key and the viewer rule', async () => {
    const document = (await s.admin.get('/openapi.json')).body as Json;
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(document.servers).toHaveLength(1);
    // Its shapes are named once, as code generators name their types.
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining([
        'ApiKey',
        'DeadLetter',
        'DeliveryAttempt',
        'Download',
        'Error',
        'ManagedDealRoom',
        'ManagedDocument',
        'ManagedLink',
        'NewApiKey',
        'NewWebhookEndpoint',
        'Team',
        'View',
        'Visit',
        'WebhookEndpoint',
      ]),
    );
    const tags = new Set(document.tags.map((t: Json) => t.name));
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const where = `${method} ${path}`;
        expect(
          operation.tags.every((t: string) => tags.has(t)),
          where,
        ).toBe(true);
        expect(operation.description, where).toBeTruthy();
        for (const response of Object.values<Json>(operation.responses)) {
          expect(response.description, where).not.toBe('Default Response');
        }
        const names = (operation.parameters ?? []).map((p: Json) => p.name);
        expect(names.includes('Idempotency-Key'), where).toBe(method === 'post');
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'path')
            expect(parameter.schema, where).toEqual({ type: 'string', format: 'uuid' });
        }
      }
    }
    const viewer =
      document.paths['/links/{id}/views'].post.requestBody.content['application/json'].schema.properties
        .viewer;
    expect(viewer.anyOf).toEqual([{ required: ['email'] }, { required: ['visitorId'] }]);
    const refused = await s.admin.post(`/links/${crypto.randomUUID()}/views`, {
      documentId: crypto.randomUUID(),
      viewer: {},
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: 'viewer needs "email" or "visitorId"', code: 'validation_error' },
    });
  });
});

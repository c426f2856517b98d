import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { API_VERSION } from '../core/envelope.ts';
import { webhooksSection } from './event-catalogue.ts';

const header = (description: string, schema: Record<string, unknown>, required = true) => ({
  description,
  required,
  schema,
});

/** Headers on every response of a v1 operation. */
const ALWAYS = {
  'X-Request-Id': header(
    "The request id: the caller's own when it was sane (up to 128 of A-Z a-z 0-9 . _ : -), else a new UUID",
    { type: 'string' },
  ),
};
/** Headers on every authenticated response (contract.md section 3). */
const BUDGET = {
  'X-RateLimit-Limit': header('The limit of whichever budget (key or team) has less left', {
    type: 'integer',
  }),
  'X-RateLimit-Remaining': header('Requests left in that budget', { type: 'integer' }),
  'X-RateLimit-Reset': header('Unix time (seconds) when its oldest counted request leaves the window', {
    type: 'integer',
  }),
  'RateLimit-Policy': header('Both budgets, IETF syntax', {
    type: 'string',
    examples: ['"key";q=1000;w=3600, "team";q=3000;w=3600'],
  }),
  RateLimit: header('What is left of both, IETF syntax', {
    type: 'string',
    examples: ['"key";r=998;t=3412, "team";r=2950;t=3412'],
  }),
};
const SUCCESS = {
  ETag: header('Weak validator of the body; send it back in If-None-Match', {
    type: 'string',
    examples: ['W/"k2JxXw3Ff0SkZqzvXg6x1PD0b6A"'],
  }),
  'Cache-Control': header('Always "private, no-cache"', { type: 'string', const: 'private, no-cache' }),
  Vary: header('Always "Authorization, X-API-Key"', { type: 'string' }),
};

const ERROR_EXAMPLES: Record<
  string,
  { description: string; examples: Record<string, { error: string; code: string }> }
> = {
  '400': {
    description: 'A query value outside its allowed set',
    examples: { page: { error: 'page must be a base-10 integer >= 1', code: 'validation_error' } },
  },
  '401': {
    description: 'No key, or a key that is unknown, malformed or revoked',
    examples: {
      missing: { error: 'API key is required', code: 'unauthorized' },
      invalid: { error: 'Invalid API key', code: 'unauthorized' },
    },
  },
  '404': {
    description: "The room does not exist, is another team's, or the id is not a UUID",
    examples: { room: { error: 'Deal room not found', code: 'not_found' } },
  },
  '429': {
    description: "The key's or the team's budget is spent",
    examples: { limit: { error: 'Rate limit exceeded', code: 'rate_limit' } },
  },
  '500': {
    description: 'An unexpected failure (details are only in the server log)',
    examples: { internal: { error: 'An unexpected error occurred', code: 'internal_error' } },
  },
  '503': {
    description:
      'Saturated: no database connection became free within the wait bound. Retry after Retry-After.',
    examples: { busy: { error: 'Service is busy, try again shortly', code: 'service_unavailable' } },
  },
};

// biome-ignore lint/suspicious/noExplicitAny: the generated OpenAPI document is walked as plain JSON
type Json = Record<string, any>;

/** A 500 or 503 may come before the request was counted (say, during authentication). */
const optional = (headers: Json): Json =>
  Object.fromEntries(Object.entries(headers).map(([name, spec]) => [name, { ...spec, required: false }]));

/**
 * Adds to the document generated from the route schemas what routes do not declare: the
 * response headers, the error bodies' descriptions and examples, and 304. Declared once
 * here for every operation.
 */
export function decorateDocument(document: Json): Json {
  for (const path of Object.values<Json>(document.paths ?? {})) {
    const operation = path.get;
    if (!operation) continue;
    for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
      if (response.description === 'Default Response') response.description = 'Success';
      const error = ERROR_EXAMPLES[status];
      if (error) {
        response.description = error.description;
        const media = response.content?.['application/json'];
        if (media)
          media.examples = Object.fromEntries(
            Object.entries(error.examples).map(([k, value]) => [k, { value }]),
          );
      }
      response.headers = {
        ...ALWAYS,
        ...(status === '401' ? {} : status === '500' || status === '503' ? optional(BUDGET) : BUDGET),
        ...(status === '200' ? SUCCESS : {}),
        ...(status === '401'
          ? { 'WWW-Authenticate': header('Always "Bearer"', { type: 'string', const: 'Bearer' }) }
          : {}),
        ...(status === '429' || status === '503'
          ? { 'Retry-After': header('Seconds until a request will pass', { type: 'integer' }) }
          : {}),
      };
    }
    operation.responses['304'] = {
      description: 'Not modified: the If-None-Match header matched the current ETag. No body.',
      headers: { ...ALWAYS, ...BUDGET, ETag: SUCCESS.ETag },
    };
    operation.parameters = [
      ...(operation.parameters ?? []).map(forGenerators),
      {
        in: 'header',
        name: 'If-None-Match',
        required: false,
        description: 'An ETag from an earlier response',
        schema: { type: 'string' },
      },
    ];
    // HEAD is answered like GET, without the body (validating proxies must let it through).
    path.head = {
      ...operation,
      operationId: `${operation.operationId}Head`,
      summary: `${operation.summary ?? operation.operationId} (headers only)`,
      responses: Object.fromEntries(
        Object.entries<Json>(operation.responses).map(([status, { content: _content, ...response }]) => [
          status,
          response,
        ]),
      ),
    };
  }
  return document;
}

/**
 * The shapes the API shares (DealRoom, Document, Link, Viewer, Analytics, Error...), each
 * once under components.schemas and referred to wherever it stands, so that generated
 * clients name their types after them. A schema is named by its `title`.
 */
export function nameSharedSchemas(document: Json): Json {
  const named: Json = {};
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    const out: Json = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, walk(value)]));
    // One spelling of a single allowed value (the generator writes `enum` in paths, `const` elsewhere).
    if ('const' in out && !('enum' in out)) {
      const { const: only, ...rest } = out;
      return walkNamed({ ...rest, enum: [only] });
    }
    return walkNamed(out);
  };
  const walkNamed = (schema: Json): Json => {
    const { title } = schema;
    if (typeof title !== 'string' || schema.type !== 'object') return schema;
    const earlier = named[title];
    if (earlier !== undefined && canonical(earlier) !== canonical(schema)) {
      throw new Error(`two different schemas are titled ${title}`);
    }
    named[title] = schema;
    return { $ref: `#/components/schemas/${title}` };
  };
  document.paths = walk(document.paths);
  if (document.webhooks) document.webhooks = walk(document.webhooks);
  document.components = {
    ...document.components,
    schemas: { ...document.components?.schemas, ...sortedByKey(named) },
  };
  return document;
}

/** JSON with every object's keys in order: equal for schemas that differ only in key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? sortedByKey(v as Json) : v,
  );
}

function sortedByKey(object: Json): Json {
  return Object.fromEntries(Object.entries(object).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Parameters as code generators should type them: `page` and `per_page` as integers, the
 * room id as a UUID, defaults stated. The server still validates the raw strings more
 * strictly than these (a base-10 integer, no "1e1"), and still clamps a per_page above 100.
 */
export function forGenerators(parameter: Json): Json {
  const { name, in: where } = parameter;
  if (where === 'query' && name === 'page') {
    return { ...parameter, example: 1, schema: { type: 'integer', minimum: 1, default: 1, examples: [1] } };
  }
  if (where === 'query' && name === 'per_page') {
    return {
      ...parameter,
      example: 20,
      description:
        'Page size, 1 to 100. Default 20. A value above 100 is not refused: it is treated as 100 (the effective page size is in meta.pagination.perPage).',
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20, examples: [20] },
    };
  }
  if (where === 'query' && name === 'period')
    return { ...parameter, schema: { ...parameter.schema, default: '30d' } };
  if (where === 'path' && (name === 'id' || name === 'teamId')) {
    return { ...parameter, schema: { type: 'string', format: 'uuid' } };
  }
  return parameter;
}

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Deal Room Analytics API',
        version: API_VERSION,
        description:
          "Read-only access to your team's deal rooms, their published documents, share links, viewers and analytics. " +
          'Every operation is a GET answering JSON. Authenticate with `Authorization: Bearer <key>` or `X-API-Key: <key>`. ' +
          'Each key may make 1,000 requests and each team 3,000 in any rolling hour. ' +
          'Any other method on these paths answers 405 `method_not_allowed` with `Allow: GET, HEAD` ' +
          '(components.responses.MethodNotAllowed).',
      },
      components: {
        responses: {
          MethodNotAllowed: {
            description: 'Any method but GET and HEAD on a path of this API',
            headers: {
              Allow: header('Always "GET, HEAD"', { type: 'string', const: 'GET, HEAD' }),
              ...ALWAYS,
            },
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Error' },
                example: { error: 'Method not allowed', code: 'method_not_allowed' },
              },
            },
          },
        },
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key (dr_live_...) as a bearer token',
          },
          apiKeyHeader: {
            type: 'apiKey',
            in: 'header',
            name: 'X-API-Key',
            description: 'An API key (dr_live_...)',
          },
        },
      },
      servers: [{ url: '/', description: 'This server (PORT, default 8080)' }],
      security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
      tags: [{ name: 'Deal rooms', description: 'Rooms and everything in them' }],
    },
    stripBasePath: false,
    hideUntagged: true,
    transformObject: (document) =>
      nameSharedSchemas({
        ...decorateDocument(structuredClone((document as { openapiObject: Json }).openapiObject)),
        // The events a team's webhook endpoints receive (contract.md section 4).
        webhooks: structuredClone(webhooksSection()) as Json,
      }),
  });
}

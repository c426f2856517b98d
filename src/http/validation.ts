import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { MAX_PER_PAGE } from '../core/query.ts';

/** A validation failure as one message naming the field: "viewer.email must be …". */
export function bodyErrorMessage(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): string {
  const first = errors[0];
  if (!first) return 'The request is invalid';
  // A choice of required fields (a viewer's email or visitorId): its branches' errors, then its own.
  const choice = errors.find((e) => e.keyword === 'anyOf');
  if (choice) {
    const path = choice.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const needed = errors
      .filter((e) => e.keyword === 'required' && e.instancePath === choice.instancePath)
      .map((e) => `"${String((e.params as { missingProperty?: unknown }).missingProperty)}"`);
    if (needed.length > 1)
      return `${path || 'The body'} needs ${needed.slice(0, -1).join(', ')} or ${needed.at(-1)}`;
  }
  const path = first.instancePath.replace(/^\//, '').replaceAll('/', '.');
  const params = first.params as Record<string, unknown>;
  const where = context === 'querystring' ? 'query parameter ' : '';
  switch (first.keyword) {
    case 'required':
      return `${where}${join(path, String(params.missingProperty))} is required`;
    case 'additionalProperties':
      return `${where}${join(path, String(params.additionalProperty))} is not a known field`;
    case 'minProperties':
      return path ? `${path} must not be empty` : 'The body must change at least one field';
    case 'type':
      if (!path && context === 'body') return 'The body must be a JSON object';
      return `${where}${path} must be ${article(String(params.type))}`;
    case 'format':
      return `${where}${path} must be ${params.format === 'date-time' ? 'an ISO 8601 timestamp with a time zone' : `a valid ${String(params.format)}`}`;
    case 'pattern':
      return `${where}${path || 'value'} is not in the allowed form`;
    case 'enum':
      return `${where}${path} must be one of: ${(params.allowedValues as unknown[]).join(', ')}`;
    default:
      return `${where}${path || 'body'} ${first.message ?? 'is invalid'}`;
  }
}

const join = (path: string, field: string) => (path ? `${path}.${field}` : field);
const article = (type: string) =>
  type === 'integer' || type === 'object' || type === 'array' ? `an ${type}` : `a ${type}`;

const PARAM_RULES: Record<string, string> = {
  page: 'page must be a base-10 integer >= 1',
  per_page: `per_page must be a base-10 integer >= 1 (values above ${MAX_PER_PAGE} are treated as ${MAX_PER_PAGE})`,
  status: 'status must be one of: active, archived',
  period: 'period must be one of: 7d, 30d, 90d, all',
};

/** A message naming the parameter and what it allows, from a query validation failure. */
export function queryErrorMessage(errors: readonly FastifySchemaValidationError[], query: unknown): string {
  const first = errors[0];
  const param = first?.instancePath.replace(/^\//, '').split('/')[0] ?? '';
  const value = (query as Record<string, unknown> | undefined)?.[param];
  if (Array.isArray(value)) return `${param} must be given at most once`;
  return PARAM_RULES[param] ?? 'The query string is invalid';
}

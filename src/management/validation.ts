import type { FastifySchemaValidationError } from 'fastify/types/schema.js';

/** A validation failure as one message naming the field: "viewer.email must be …". */
export function bodyErrorMessage(
  errors: readonly FastifySchemaValidationError[],
  context: string | undefined,
): string {
  const first = errors[0];
  if (!first) return 'The request is invalid';
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

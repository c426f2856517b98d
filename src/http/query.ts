import { type Static, Type } from '@sinclair/typebox';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { StringEnum } from './fields.ts';

/**
 * Query parameters arrive as strings and are validated as strings: a JSON-schema integer
 * with type coercion would also accept "1e1", "0x10" or " 5", which are not base-10
 * integers. A parameter given twice arrives as an array and fails its string type.
 */
export const MAX_PER_PAGE = 100;
export const DEFAULT_PER_PAGE = 20;

const PageParam = Type.String({
  pattern: '^0*[1-9][0-9]{0,14}$',
  description: 'Page number, 1-indexed (a base-10 integer of at most 15 digits). Default 1.',
  examples: ['1'],
});
const PerPageParam = Type.String({
  pattern: '^0*[1-9][0-9]*$',
  description: `Page size, a base-10 integer >= 1. Default ${DEFAULT_PER_PAGE}; values above ${MAX_PER_PAGE} are treated as ${MAX_PER_PAGE}.`,
  examples: ['20'],
});

export const PaginationQuery = Type.Object({
  page: Type.Optional(PageParam),
  per_page: Type.Optional(PerPageParam),
});

export const DealRoomListQuery = Type.Object({
  page: Type.Optional(PageParam),
  per_page: Type.Optional(PerPageParam),
  status: Type.Optional(
    StringEnum(['active', 'archived'] as const, { description: 'Only rooms with this status.' }),
  ),
});

export const PERIODS = ['7d', '30d', '90d', 'all'] as const;
export type Period = (typeof PERIODS)[number];

export const AnalyticsQuery = Type.Object({
  period: Type.Optional(
    StringEnum(PERIODS, {
      description: 'Days covered, ending today (UTC): 7, 30, 90, or all time. Default 30d.',
    }),
  ),
});

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

export interface PageRequest {
  page: number;
  perPage: number;
}

export function toPageRequest(query: Static<typeof PaginationQuery>): PageRequest {
  const page = query.page === undefined ? 1 : Number(query.page);
  const perPage =
    query.per_page === undefined ? DEFAULT_PER_PAGE : Math.min(Number(query.per_page), MAX_PER_PAGE);
  return { page, perPage };
}

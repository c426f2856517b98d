import { type Static, Type } from '@sinclair/typebox';

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

import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from '../../http/envelope.ts';
import { MAX_PER_PAGE } from '../../http/query.ts';

/** Response schemas of a management operation: its success and the errors it can answer. */
export function answers<S extends number, T extends TSchema>(status: S, success: T, ...errors: number[]) {
  return {
    [status]: success,
    ...Object.fromEntries([401, 500, 503, ...errors].map((code) => [code, ErrorSchema])),
  } as { [K in S]: T };
}

/** 204: a deletion. */
export const NO_CONTENT = { type: 'null', description: 'Deleted' } as const;

export const toDate = (value: string | null | undefined): Date | null | undefined =>
  value === undefined || value === null ? value : new Date(value);

export function pageOf(query: { page?: string | undefined; per_page?: string | undefined }) {
  const page = query.page === undefined ? 1 : Number(query.page);
  const perPage = query.per_page === undefined ? 20 : Math.min(Number(query.per_page), MAX_PER_PAGE);
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage };
}

export function paginated<T>(items: T[], total: number, page: { page: number; perPage: number }) {
  return {
    data: items,
    meta: {
      pagination: {
        page: page.page,
        perPage: page.perPage,
        total,
        totalPages: Math.ceil(total / page.perPage),
      },
    },
  };
}

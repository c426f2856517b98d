import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from '../../http/envelope.ts';
import type { PageRequest } from '../../http/query.ts';

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

export function paginated<T>(items: T[], total: number, page: PageRequest) {
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

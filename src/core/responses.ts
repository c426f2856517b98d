import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from './envelope.ts';
import type { PageRequest } from './query.ts';

/** The error statuses every authenticated v1 operation can answer with. */
const COMMON_ERRORS = { 401: ErrorSchema, 429: ErrorSchema, 500: ErrorSchema, 503: ErrorSchema } as const;

/** Response schemas for a v1 operation: its success body plus its error bodies. */
export function responses<T extends TSchema>(
  success: T,
  options: { validates?: boolean; hasRoomId?: boolean } = {},
) {
  return {
    200: success,
    ...COMMON_ERRORS,
    ...(options.validates ? { 400: ErrorSchema } : {}),
    ...(options.hasRoomId ? { 404: ErrorSchema } : {}),
  };
}

/** Response schemas of a management operation: its success and the errors it can answer. */
export function answers<S extends number, T extends TSchema>(status: S, success: T, ...errors: number[]) {
  return {
    [status]: success,
    ...Object.fromEntries([401, 429, 500, 503, ...errors].map((code) => [code, ErrorSchema])),
  } as { [K in S]: T };
}

/** 204: a deletion. */
export const NO_CONTENT = { type: 'null', description: 'Deleted' } as const;

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

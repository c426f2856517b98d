import { type TSchema, Type } from '@sinclair/typebox';
import { ERROR_CODES } from './errors.ts';
import { StringEnum } from './fields.ts';
import type { PageRequest } from './query.ts';

export const API_VERSION = '2026-04-01';

const Meta = Type.Object(
  {
    apiVersion: Type.String({
      description: 'Release date of the API version, YYYY-MM-DD',
      examples: [API_VERSION],
    }),
  },
  { additionalProperties: false },
);

export const PaginationSchema = Type.Object(
  {
    page: Type.Integer({ description: 'The requested page' }),
    perPage: Type.Integer({ description: 'The effective page size' }),
    total: Type.Integer({ description: 'Number of items in all pages' }),
    totalPages: Type.Integer({ description: 'ceil(total / perPage); 0 when there are no items' }),
  },
  { additionalProperties: false, title: 'Pagination' },
);

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'A human-readable message' }),
    code: StringEnum(ERROR_CODES, { description: 'A stable, machine-readable code' }),
  },
  { additionalProperties: false, title: 'Error' },
);

const exampleOf = (schema: TSchema): unknown => (schema.examples as unknown[] | undefined)?.[0];

export function SingleEnvelope<T extends TSchema>(data: T) {
  const example = exampleOf(data);
  return Type.Object(
    { data, meta: Meta },
    {
      additionalProperties: false,
      ...(example ? { examples: [{ data: example, meta: { apiVersion: API_VERSION } }] } : {}),
    },
  );
}

export function ListEnvelope<T extends TSchema>(item: T) {
  return Type.Object(
    {
      data: Type.Array(item),
      meta: Type.Object(
        { apiVersion: Meta.properties.apiVersion, pagination: PaginationSchema },
        { additionalProperties: false },
      ),
    },
    {
      additionalProperties: false,
      ...(exampleOf(item)
        ? {
            examples: [
              {
                data: [exampleOf(item)],
                meta: {
                  apiVersion: API_VERSION,
                  pagination: { page: 1, perPage: 20, total: 1, totalPages: 1 },
                },
              },
            ],
          }
        : {}),
    },
  );
}

export interface Page<T> {
  items: T[];
  total: number;
}

export function single<T>(data: T) {
  return { data, meta: { apiVersion: API_VERSION } };
}

export function list<T>(page: Page<T>, request: PageRequest) {
  return {
    data: page.items,
    meta: {
      apiVersion: API_VERSION,
      pagination: {
        page: request.page,
        perPage: request.perPage,
        total: page.total,
        totalPages: Math.ceil(page.total / request.perPage),
      },
    },
  };
}

/** LIMIT and OFFSET of a page; the offset as a decimal string, since it may pass 2^53. */
export function pageWindow(request: PageRequest): { limit: number; offset: string } {
  return { limit: request.perPage, offset: String(BigInt(request.page - 1) * BigInt(request.perPage)) };
}

/** A row of a page read in one query: the list's total rides on every row. */
export interface PageRow {
  total: number;
  id: string | null;
}

/**
 * A page read in one query that joins the owner (the team or the room, filtered by team)
 * to its page of items: no row means the owner is not the caller's; one row with a null id
 * is an empty page (past the last, or an empty list); otherwise one row per item.
 */
export function pageFromRows<Row extends PageRow, T>(
  rows: readonly Row[],
  toItem: (row: Row & { id: string }) => T,
): Page<T> | undefined {
  const first = rows[0];
  if (!first) return undefined;
  const items = rows.filter((row): row is Row & { id: string } => row.id !== null).map(toItem);
  return { items, total: first.total };
}

import { type TSchema, Type } from '@sinclair/typebox';
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
  { additionalProperties: false },
);

export const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'A human-readable message' }),
    code: Type.String({ description: 'A stable, machine-readable code' }),
  },
  { additionalProperties: false },
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

/**
 * One page of a list: the total first, then the rows of the page only when it starts
 * before the end (a page past the last is empty, with the true total, and costs no query).
 */
export async function paginate<Row, T>(
  request: PageRequest,
  count: () => Promise<number>,
  fetchRows: (window: { limit: number; offset: number }) => Promise<Row[]>,
  toItem: (row: Row) => T,
): Promise<Page<T>> {
  const total = await count();
  const offset = (request.page - 1) * request.perPage;
  if (offset >= total) return { items: [], total };
  const rows = await fetchRows({ limit: request.perPage, offset });
  return { items: rows.map(toItem), total };
}

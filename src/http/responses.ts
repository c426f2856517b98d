import type { TSchema } from '@sinclair/typebox';
import { ErrorSchema } from './envelope.ts';

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

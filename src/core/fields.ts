import { type TUnsafe, Type } from '@sinclair/typebox';

/** Field types shared by the resource schemas. */
export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-04-01T09:30:00.000Z'] });

export const NullableTimestamp = (description: string) =>
  Type.Union([Timestamp(description), Type.Null()], { description });

/** A string from a fixed set, as a plain JSON-schema enum (clearer in the OpenAPI document than anyOf). */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: Record<string, unknown> = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** A person's email address: something before and after one @, the domain with a dot; 320 at most. */
export const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export const isEmail = (value: string): boolean => value.length <= 320 && EMAIL.test(value);

/** A person's email address in a form or body (the rule above); `errorMessage` is what a form says. */
export const Email = () =>
  Type.String({ maxLength: 320, pattern: EMAIL.source, errorMessage: 'Enter a valid email' });

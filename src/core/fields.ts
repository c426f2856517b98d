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

/**
 * What no part of an email address may hold: spaces and controls, the characters that make one
 * string several addresses or a display name (`, ; : < > ( ) [ ] \ "`), and the controls that
 * reverse how text is shown (U+202A-U+202E, U+2066-U+2069) or hide in it (U+200B, U+2060, U+FEFF).
 */
const NOT_IN_EMAIL =
  '\\s@,;:<>()\\[\\]\\\\"\\u0000-\\u001f\\u007f\\u200b\\u2060\\ufeff\\u202a-\\u202e\\u2066-\\u2069';

/**
 * A person's email address: a local part of 1 to 64 characters, one @, and a domain of dotted
 * labels (international ones as they are written: почта@пример.рф); 320 at most.
 */
export const EMAIL = new RegExp(
  `^[^${NOT_IN_EMAIL}]{1,64}@[^${NOT_IN_EMAIL}.]+(?:\\.[^${NOT_IN_EMAIL}.]+)+$`,
);

export const isEmail = (value: string): boolean => value.length <= 320 && EMAIL.test(value);

/** A person's email address in a form or body (the rule above); `errorMessage` is what a form says. */
export const Email = () =>
  Type.String({ maxLength: 320, pattern: EMAIL.source, errorMessage: 'Enter a valid email' });

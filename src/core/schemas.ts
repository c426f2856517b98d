import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { PaginationSchema } from './envelope.ts';

/**
 * The pieces the management API's bodies and resources are made of. Resources are the read
 * API's schemas plus the settings only the dashboard sees; request bodies refuse unknown fields.
 */
export const strict = { additionalProperties: false } as const;
/**
 * A name: 1 to `max` characters, not blank, without the controls that reverse how text is
 * shown (U+202A-U+202E, U+2066-U+2069) or hide in it (zero-width space, word joiner, BOM),
 * so a name cannot pass itself off as another.
 */
export const Name = (max = 200) =>
  Type.String({
    minLength: 1,
    maxLength: max,
    pattern: '^(?=[\\s\\S]*\\S)[^\\u200b\\u2060\\ufeff\\u202a-\\u202e\\u2066-\\u2069]*$',
  });
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});
/** A resource as the management API shows it: the read API's shape, and what only its writers see. */
export const Managed = <P extends TProperties, E extends TProperties>(
  title: string,
  read: TObject<P>,
  more: E,
) => Type.Object({ ...read.properties, ...more }, { ...strict, title });
export const When = (description: string) => Type.String({ format: 'date-time', description });

export const IdParams = Type.Object({ id: Type.String({ description: 'A UUID' }) });
export const TeamParams = Type.Object({ teamId: Type.String({ description: 'Team id (a UUID)' }) });

export const Data = <T extends TSchema>(data: T) => Type.Object({ data }, strict);
export const DataList = <T extends TSchema>(item: T) => Type.Object({ data: Type.Array(item) }, strict);
export const DataPage = <T extends TSchema>(item: T) =>
  Type.Object(
    { data: Type.Array(item), meta: Type.Object({ pagination: PaginationSchema }, strict) },
    strict,
  );

/**
 * The room id is declared as a plain string: a malformed id must answer 404 like any other
 * id that names no accessible room, not fail validation with a 400.
 */
export const RoomParams = Type.Object({
  id: Type.String({ description: 'Deal room id (a UUID)' }),
});

/** A web form's body as its route declares it: fields of text (a repeated one keeps every value beside it). */
export const FormBody = Type.Record(Type.String(), Type.String());

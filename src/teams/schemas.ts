import { Type } from '@sinclair/typebox';
import { EntryList } from '../core/email-entries.ts';
import { Timestamp, Uuid } from '../core/fields.ts';
import { Name, strict } from '../core/schemas.ts';

export const TeamSchema = Type.Object(
  { id: Uuid(), name: Type.String(), createdAt: Timestamp('When it was created') },
  { ...strict, title: 'Team' },
);
export const TeamBody = Type.Object({ name: Name() }, strict);

/** A team with its settings (the management API's PATCH answer). */
export const TeamSettingsSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    createdAt: Timestamp('When it was created'),
    timezone: Type.String({ description: 'IANA name; the dashboard shows times and counts days in it' }),
    internalDomains: Type.Array(Type.String(), {
      description: "@domain entries whose visits, as the team's users', are internal and counted nowhere",
    }),
  },
  { ...strict, title: 'TeamSettings' },
);
export const TeamPatch = Type.Object(
  {
    name: Type.Optional(Name()),
    timezone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'An IANA timezone name' }),
    ),
    internalDomains: Type.Optional(EntryList("@domain entries of the team's own people; at most 500")),
  },
  { ...strict, minProperties: 1 },
);

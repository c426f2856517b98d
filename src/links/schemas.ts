import { type Static, Type } from '@sinclair/typebox';
import { EntryList } from '../core/email-entries.ts';
import { NullableTimestamp, Timestamp, Uuid } from '../core/fields.ts';
import { Managed, Name, Nullable, strict, When } from '../core/schemas.ts';
import { eventsCarrying } from '../events/catalogue.ts';

export const LinkSchema = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    shortId: Type.String(),
    url: Type.String({ description: 'Public address: {APP_URL}/v/{shortId}' }),
    isActive: Type.Boolean({ description: 'false when the link is disabled or has expired' }),
    requiresEmail: Type.Boolean(),
    requiresPassword: Type.Boolean({ description: 'true when a password is set' }),
    expiresAt: NullableTimestamp('When the link expires; null when it does not'),
    totalClicks: Type.Integer({ description: 'All-time visits (openings of the link)' }),
    createdAt: Timestamp('When the link was created'),
  },
  {
    additionalProperties: false,
    examples: [
      {
        id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        name: 'Lead investors',
        shortId: 'f4lc0n-b',
        url: 'https://app.example.com/v/f4lc0n-b',
        isActive: true,
        requiresEmail: true,
        requiresPassword: false,
        expiresAt: null,
        totalClicks: 212,
        createdAt: '2026-03-04T12:00:00.000Z',
      },
    ],
    title: 'Link',
  },
);

export type Link = Static<typeof LinkSchema>;

export const ManagedLinkSchema = Managed('ManagedLink', LinkSchema, {
  dealRoomId: Uuid(),
  enabled: Type.Boolean(),
  allowDownload: Type.Boolean(),
  watermark: Type.Boolean({
    description: "The viewer's email and the time over every page shown and downloaded",
  }),
  documentIds: Nullable(Type.Array(Uuid()), 'The documents the link shows; null: all of the room'),
  verifyEmail: Type.Boolean({ description: 'The gate mails a code to prove the email' }),
  allowList: Type.Array(Type.String(), { description: 'Emails and @domain entries that may open the link' }),
  blockList: Type.Array(Type.String(), { description: 'Emails and @domain entries that may not' }),
  agreement: Nullable(Type.String(), 'Text the recipient accepts before the room opens'),
});
/** How long an agreement's text may be. */
export const AGREEMENT_MAX = 20_000;
const linkFields = {
  shortId: Type.Optional(
    Type.String({ pattern: '^[A-Za-z0-9_-]{4,64}$', description: '4 to 64 of A-Z a-z 0-9 _ -' }),
  ),
  enabled: Type.Optional(Type.Boolean()),
  requiresEmail: Type.Optional(Type.Boolean()),
  password: Type.Optional(
    Nullable(
      Type.String({ minLength: 8, maxLength: 200 }),
      'At least 8 characters; stored hashed, never returned',
    ),
  ),
  expiresAt: Type.Optional(Nullable(When('When the link stops working; null: never'))),
  allowDownload: Type.Optional(Type.Boolean()),
  watermark: Type.Optional(Type.Boolean()),
  documentIds: Type.Optional(
    Nullable(Type.Array(Type.String({ format: 'uuid' }), { maxItems: 1000, uniqueItems: true })),
  ),
  verifyEmail: Type.Optional(
    Type.Boolean({ description: 'Mail a six-digit code to prove the email (needs SMTP_URL, else 409)' }),
  ),
  allowList: Type.Optional(
    EntryList('Only these emails and @domain entries may open the link (empty: anyone); at most 500'),
  ),
  blockList: Type.Optional(EntryList('These emails and @domain entries may not open the link; at most 500')),
  agreement: Type.Optional(
    Nullable(
      Type.String({ minLength: 1, maxLength: 20_000 }),
      'Text the recipient accepts (I agree) before the room opens; null: none',
    ),
  ),
};
export const LinkBody = Type.Object({ name: Name(), ...linkFields }, strict);
export const LinkPatch = Type.Object(
  { name: Type.Optional(Name()), ...linkFields },
  { ...strict, minProperties: 1 },
);

/** The events about a link: `data` has the Link fields. */
export const LinkEvents = eventsCarrying(
  ['link.created', 'link.updated', 'link.deactivated', 'link.expired', 'link.deleted'],
  LinkSchema,
);

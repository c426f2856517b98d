import { type Static, Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, Uuid } from '../http/fields.ts';

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
  { additionalProperties: false },
);

export type Link = Static<typeof LinkSchema>;

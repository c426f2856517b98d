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
  },
);

export type Link = Static<typeof LinkSchema>;

import { Type } from '@sinclair/typebox';
import { NullableTimestamp, Timestamp, Uuid } from '../core/fields.ts';
import { Name, strict } from '../core/schemas.ts';

const apiKeyFields = {
  id: Uuid(),
  teamId: Uuid(),
  name: Type.String(),
  prefix: Type.String({ description: 'The first characters of the key, to tell keys apart' }),
  createdAt: Timestamp('When it was created'),
  lastUsedAt: NullableTimestamp('Last authenticated request (updated at most once a minute)'),
  revokedAt: NullableTimestamp('When it was revoked; null while active'),
};
export const ApiKeySchema = Type.Object(apiKeyFields, { ...strict, title: 'ApiKey' });
export const CreatedApiKeySchema = Type.Object(
  {
    ...apiKeyFields,
    key: Type.Optional(
      Type.String({
        description: 'The plain key: in this answer only (not in a repeat under the same Idempotency-Key)',
      }),
    ),
  },
  { ...strict, title: 'NewApiKey' },
);
export const ApiKeyBody = Type.Object({ name: Type.Optional(Name()) }, strict);

import { Type } from '@sinclair/typebox';
import { Timestamp, Uuid } from '../core/fields.ts';
import { Name, strict } from '../core/schemas.ts';

export const TeamSchema = Type.Object(
  { id: Uuid(), name: Type.String(), createdAt: Timestamp('When it was created') },
  { ...strict, title: 'Team' },
);
export const TeamBody = Type.Object({ name: Name() }, strict);

import { Type } from '@sinclair/typebox';

/** Field types shared by the resource schemas. */
export const Uuid = (description?: string) =>
  Type.String({ format: 'uuid', ...(description ? { description } : {}) });

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-04-01T09:30:00.000Z'] });

export const NullableTimestamp = (description: string) =>
  Type.Union([Timestamp(description), Type.Null()], { description });

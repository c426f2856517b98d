import { forGenerators } from '../http/openapi.ts';

// biome-ignore lint/suspicious/noExplicitAny: the generated OpenAPI document is walked as plain JSON
type Json = Record<string, any>;

export const MANAGEMENT_TAGS = [
  { name: 'Teams', description: 'Teams, and their API keys for the read API' },
  { name: 'Deal rooms', description: 'Rooms: create, change, archive, restore, delete' },
  { name: 'Documents', description: "A room's documents, their publication and download rule" },
  { name: 'Links', description: 'Share links and their settings (a password goes in, never out)' },
  { name: 'Tracking', description: 'What the link page records: visits, views, downloads' },
  { name: 'Webhooks', description: 'Endpoints, their deliveries and dead letters' },
];

/** What each status of a management operation means, in place of "Default Response". */
const STATUS_DESCRIPTIONS: Record<string, string> = {
  '200': 'Success: the resource after the change, or the list',
  '201': 'Created: the new resource',
  '204': 'Done: nothing to return',
  '400': 'A field is missing or not valid; the message names it',
  '401': 'No admin token, or not this one',
  '403': 'Refused by the rules (a download the link or the document does not allow)',
  '404': 'No such resource (also for an id that is not a UUID)',
  '409': 'In conflict with the current state (a limit reached, a duplicate, already done)',
  '413': 'The file is larger than FILE_MAX_BYTES',
  '415': 'The file is not a PDF, PNG or JPEG (recognised by its content)',
  '429': 'This address sent a wrong admin token too often: retry after Retry-After',
  '500': 'An unexpected failure (details are only in the server log)',
  '503': 'Saturated: retry after Retry-After',
};

const IDEMPOTENCY_KEY = {
  in: 'header',
  name: 'Idempotency-Key',
  required: false,
  description:
    'Makes a POST safe to retry: a repeat with the same key and body within 24 hours gets the first answer and changes nothing; the same key with another body is a 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
};

/**
 * What the route schemas do not say of the management document: its tags, a description of
 * every answer, ids typed as UUIDs and page parameters as integers (as code generators
 * should see them), the Idempotency-Key header on every POST, and a description for every
 * operation (its summary, where it has no other).
 */
export function decorateManagementDocument(document: Json): Json {
  document.tags = MANAGEMENT_TAGS;
  for (const path of Object.values<Json>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Json>(path)) {
      if (Array.isArray(operation.parameters)) operation.parameters = operation.parameters.map(forGenerators);
      if (method === 'post') operation.parameters = [...(operation.parameters ?? []), IDEMPOTENCY_KEY];
      operation.description ??= operation.summary;
      for (const [status, response] of Object.entries<Json>(operation.responses ?? {})) {
        if (response.description === 'Default Response' || !response.description) {
          response.description = STATUS_DESCRIPTIONS[status] ?? 'An answer';
        }
      }
    }
  }
  return document;
}

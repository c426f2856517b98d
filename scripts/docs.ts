/**
 * Writes the documentation generated from the schemas: docs/webhook-events.md from the event
 * catalogue and docs/management-api.md from the management API's OpenAPI document.
 * `npm run docs` writes them; a test fails when they are not what the code would write.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TSchema } from '@sinclair/typebox';
import { systemClock } from '../src/core/clock.ts';
import { openEmbedded } from '../src/db/embedded.ts';
import { EVENT_TYPES } from '../src/events/catalogue.ts';
import { EVENT_PAYLOADS } from '../src/http/event-catalogue.ts';
import { buildManagementApp } from '../src/management/app.ts';
import { writeContexts } from '../src/write/context.ts';

// biome-ignore lint/suspicious/noExplicitAny: OpenAPI and JSON schemas are walked as plain JSON
type Json = Record<string, any>;

const DOCS = fileURLToPath(new URL('../docs/', import.meta.url));

/** The type of a JSON-schema field, in words. */
function typeOf(schema: Json): string {
  if (schema.const !== undefined) return `\`${String(schema.const)}\``;
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' or ');
  if (schema.enum) return schema.enum.map((v: unknown) => `\`${String(v)}\``).join(', ');
  if (schema.type === 'array') return `array of ${typeOf(schema.items ?? {})}`;
  if (schema.format === 'date-time') return 'timestamp';
  if (schema.format === 'uuid') return 'UUID';
  return String(schema.type ?? 'any');
}

function fieldsTable(schema: Json): string {
  const rows = Object.entries<Json>(schema.properties ?? {}).map(
    ([name, field]) =>
      `| \`${name}\` | ${typeOf(field)} | ${(field.description ?? '').replaceAll('|', '\\|')} |`,
  );
  return ['| field | type | meaning |', '|---|---|---|', ...rows].join('\n');
}

export function webhookEventsDoc(): string {
  const groups = new Map<TSchema, string[]>();
  for (const type of EVENT_TYPES) {
    const schema = EVENT_PAYLOADS[type];
    groups.set(schema, [...(groups.get(schema) ?? []), type]);
  }
  const sections = [...groups].map(
    ([schema, types]) =>
      `## ${types.map((t) => `\`${t}\``).join(', ')}\n\n\`data\`:\n\n${fieldsTable(schema as Json)}`,
  );
  return `# Webhook events

Generated from the event catalogue by \`npm run docs\`; do not edit.

Every delivery is a \`POST\` of one event, \`{ id, type, createdAt, apiVersion, teamId, data }\`,
signed per Standard Webhooks (\`webhook-id\`: the event id, the same on every retry;
\`webhook-timestamp\`; \`webhook-signature\`). \`data\` is the resource right after the change,
with the read API's fields (a deleted one as it was just before). The read API's OpenAPI
document publishes the same payloads in its \`webhooks\` section.

${sections.join('\n\n')}
`;
}

export async function managementApiDoc(): Promise<string> {
  const db = await openEmbedded(undefined);
  const token = 'documentation-only-token';
  const app = await buildManagementApp({
    db,
    clock: systemClock,
    adminToken: token,
    logger: false,
    writeContext: writeContexts({ db, clock: systemClock, appUrl: '' }),
  });
  try {
    const document = (
      await app.inject({ url: '/openapi.json', headers: { authorization: `Bearer ${token}` } })
    ).json() as Json;
    const byTag = new Map<string, string[]>();
    for (const [path, item] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(item)) {
        const body = operation.requestBody?.content?.['application/json']?.schema as Json | undefined;
        const success = Object.keys(operation.responses).find((s) => s.startsWith('2'));
        const errors = Object.keys(operation.responses).filter(
          (s) => !s.startsWith('2') && s !== '401' && s !== '500' && s !== '503',
        );
        const lines = [
          `### \`${method.toUpperCase()} ${path}\``,
          '',
          operation.summary,
          '',
          `Answers ${success}${errors.length > 0 ? `; ${errors.join(', ')} when refused` : ''}.`,
        ];
        if (body?.properties) lines.push('', 'Body:', '', fieldsTable(body));
        const tag = operation.tags?.[0] ?? 'Other';
        byTag.set(tag, [...(byTag.get(tag) ?? []), lines.join('\n')]);
      }
    }
    const tags = (document.tags as Json[]).map(
      (tag) => `## ${tag.name}\n\n${tag.description}\n\n${(byTag.get(tag.name) ?? []).join('\n\n')}`,
    );
    return `# The management API

Generated from its OpenAPI document by \`npm run docs\`; do not edit.

The internal write side, for the dashboard and the link page: its own listener
(\`MANAGEMENT_PORT\`, default 8081, loopback by default), started when \`ADMIN_TOKEN\` is set;
every request needs \`Authorization: Bearer <ADMIN_TOKEN>\` (else 401). Bodies refuse unknown
fields, and a 400 names the field; a malformed or unknown id is a 404. A POST may carry an
\`Idempotency-Key\`: a repeat with the same key and body within 24 hours gets the first answer.
Every answer may also be 401, 500 or 503 (\`Retry-After\`).

${tags.join('\n\n')}
`;
  } finally {
    await app.close();
    await db.close();
  }
}

export async function generatedDocs(): Promise<Record<string, string>> {
  return { 'webhook-events.md': webhookEventsDoc(), 'management-api.md': await managementApiDoc() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const [name, text] of Object.entries(await generatedDocs())) {
    writeFileSync(`${DOCS}${name}`, text);
    console.log(`wrote docs/${name}`);
  }
}

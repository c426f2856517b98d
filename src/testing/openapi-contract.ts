import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

type Json = Record<string, any>;

/**
 * Checks a response against the service's own OpenAPI document: the status must be
 * documented for the operation, the body must validate against its schema, and every
 * header the document calls required must be present. Used on every response the shared
 * suites receive, so the document cannot drift from what the service does.
 */
export function openApiContract(app: FastifyInstance) {
  const text = JSON.stringify((app as unknown as { swagger(): Json }).swagger());
  let contract = contracts.get(text);
  if (!contract) {
    contract = contractOf(JSON.parse(text));
    contracts.set(text, contract);
  }
  return contract;
}

/**
 * The check for each document the run's apps publish: every app of a run publishes the same
 * one, so each schema is compiled once per process rather than once per suite.
 */
const contracts = new Map<string, ReturnType<typeof contractOf>>();

function contractOf(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const operations = Object.entries<Json>(document.paths).map(([template, item]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    operation: item.get as Json,
  }));
  const compiled = new Map<object, ReturnType<Ajv2020['compile']>>();

  return function check(url: string, status: number, body: string, headers: Record<string, unknown>): void {
    const path = url.split('?')[0] ?? '';
    const found = operations.find((o) => o.pattern.test(path));
    if (!found) return; // not an operation of the API (health, unknown paths)
    const response = found.operation.responses?.[String(status)];
    if (!response) throw new Error(`${found.template}: status ${status} is not in the OpenAPI document`);
    for (const [name, spec] of Object.entries<Json>(response.headers ?? {})) {
      if (spec.required && headers[name.toLowerCase()] === undefined) {
        throw new Error(`${found.template} ${status}: header ${name} is documented as required but missing`);
      }
    }
    const schema = response.content?.['application/json']?.schema;
    if (!schema) {
      if (body !== '')
        throw new Error(`${found.template} ${status}: documented without a body, but one came`);
      return;
    }
    let validate = compiled.get(schema);
    if (!validate) {
      // The named shapes it refers to (#/components/schemas/...) resolve against this root.
      validate = ajv.compile({ ...schema, components: document.components });
      compiled.set(schema, validate);
    }
    if (!validate(JSON.parse(body))) {
      throw new Error(
        `${found.template} ${status}: body does not match the document: ${ajv.errorsText(validate.errors)}`,
      );
    }
  };
}

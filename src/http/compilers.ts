import { createHash } from 'node:crypto';
import ajvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type Factories = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type ValidatorFactory = NonNullable<Factories['buildValidator']>;
type SerializerFactory = NonNullable<Factories['buildSerializer']>;

/**
 * Fastify's own compilers (Ajv for what requests send, fast-json-stringify for what responses
 * answer), with each compiled function kept per process under the schema's content and the
 * compiler's settings. A route's schemas are built afresh by every app (an envelope around its
 * item, say), so the listeners of one process, and the apps a test run builds suite after
 * suite, would otherwise compile the same schema again each time: compiling is most of what
 * building an app costs. A compiled function holds no state of a request.
 */
const validators = ajvCompiler();
const serializers = SerializerSelector();
const compiled = new Map<string, unknown>();

/** The function compiled for this content (the key is its hash: schemas run to kilobytes). */
function kept<T>(content: string, compile: () => T): T {
  const key = createHash('sha256').update(content).digest('base64');
  let found = compiled.get(key) as T | undefined;
  if (found === undefined) {
    found = compile();
    compiled.set(key, found);
  }
  return found;
}

const buildValidator: ValidatorFactory = (externalSchemas, options) => {
  const compile = validators(externalSchemas, options);
  const settings = JSON.stringify([externalSchemas, options]);
  return (route) =>
    kept(`v ${settings} ${route.httpPart} ${JSON.stringify(route.schema)}`, () => compile(route));
};

const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = serializers(externalSchemas, options);
  const settings = JSON.stringify([externalSchemas, options]);
  return (route) => kept(`s ${settings} ${JSON.stringify(route.schema)}`, () => compile(route));
};

/** The `schemaController` option of every listener's Fastify. */
export const KEPT_COMPILERS = { compilersFactory: { buildValidator, buildSerializer } };

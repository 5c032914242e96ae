import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

/* eslint-disable @typescript-eslint/no-explicit-any -- Fastify's compiler factories are untyped here */
type Compile = (routeSchema: any) => any;
type Factory = (externalSchemas: unknown, options: unknown) => Compile;

// Fastify's own default compilers (Ajv, fast-json-stringify), wrapped below; loaded by the first route
// that compiles a schema, so that neither (about 100 modules) weighs on the start.
const require = createRequire(import.meta.url);
let defaultValidator: Factory | undefined;
let defaultSerializer: Factory | undefined;
const buildDefaultValidator: Factory = (externalSchemas, options) =>
  (defaultValidator ??= (require('@fastify/ajv-compiler') as () => Factory)())(externalSchemas, options);
const buildDefaultSerializer: Factory = (externalSchemas, options) =>
  (defaultSerializer ??= (
    require('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => Factory }
  ).SerializerSelector())(externalSchemas, options);

/** A validator that compiles its schema when it first validates; Fastify reads errors and schemaEnv off it. */
function lazyValidator(compile: () => any): any {
  let compiled: any;
  const get = () => (compiled ??= compile());
  const validate = (data: unknown, context?: unknown) => get()(data, context);
  Object.defineProperty(validate, 'errors', { get: () => get().errors });
  Object.defineProperty(validate, 'schemaEnv', { get: () => get().schemaEnv });
  return validate;
}

function lazySerializer(compile: () => (data: unknown) => string): (data: unknown) => string {
  let compiled: ((data: unknown) => string) | undefined;
  return (data) => (compiled ??= compile())(data);
}

/**
 * Fastify compiles every route's validation and response schemas when the server starts: a few hundred
 * routes' worth, about half of an empty start. These compilers do the same work per route on its first
 * request instead (a few milliseconds, once), with the same Ajv and fast-json-stringify and options.
 */
export function lazySchemaController(): FastifyServerOptions['schemaController'] {
  return {
    compilersFactory: {
      buildValidator: (externalSchemas: unknown, options: unknown) => {
        let build: Compile | undefined;
        return (routeSchema: unknown) =>
          lazyValidator(() => (build ??= buildDefaultValidator(externalSchemas, options))(routeSchema));
      },
      buildSerializer: (externalSchemas: unknown, options: unknown) => {
        let build: Compile | undefined;
        return (routeSchema: unknown) =>
          lazySerializer(() => (build ??= buildDefaultSerializer(externalSchemas, options))(routeSchema));
      },
    },
  } as FastifyServerOptions['schemaController'];
}

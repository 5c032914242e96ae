import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/schemas/common.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, emptyOk, ownValidation, type Api } from '../route-types.ts';

/** What a saved, startable resource of Sandboard's own (simulations, REST connectors) offers its routes. */
export interface RunnableResource<Summary, Details, Save, StartBody> {
  list(): Summary[] | Promise<Summary[]>;
  create(body: Save): Promise<Details>;
  get(id: string): Details | Promise<Details>;
  update(id: string, body: Save): Promise<Details>;
  delete(id: string): Promise<void>;
  start(id: string, body: StartBody): Promise<Summary>;
  stop(id: string): Promise<Summary>;
}

export interface RunnableRoutes<Save, StartBody> {
  base: string;
  tags: string[];
  /** the id's schema (its description names the resource) */
  idParams: TSchema;
  summary: TSchema;
  details: TSchema;
  /** the save body, documented; checked by `parseSave` and the resource's own validator */
  save: TSchema;
  parseSave(body: unknown): Save;
  start: TSchema;
  parseStart(body: unknown): StartBody;
  /** what each operation does, in the explorer */
  describe: Record<'list' | 'create' | 'get' | 'update' | 'delete' | 'start' | 'stop', string>;
}

export const NoBody = Type.Union([Type.Object({}), Type.Null()], { description: 'no body, or {}' });

/** Failures a start or a save may meet beyond the usual: busy (409), a gateway or platform that failed (5xx). */
export const runErrors = {
  ...authErrors,
  409: ErrorResponse,
  500: ErrorResponse,
  502: ErrorResponse,
  503: ErrorResponse,
};

/** Tenant administrators only: list, create, get, update, delete, start and stop under `base`. */
export function registerRunnableResourceRoutes<Summary, Details, Save, StartBody>(
  app: Api,
  resource: RunnableResource<Summary, Details, Save, StartBody>,
  spec: RunnableRoutes<Save, StartBody>,
): void {
  const { base, tags, idParams: params, describe } = spec;
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));
  const idOf = (request: { params: unknown }) => (request.params as { id: string }).id;

  app.get(
    base,
    { schema: { tags, summary: describe.list, response: { 200: Type.Array(spec.summary), ...authErrors } } },
    async (request) => {
      admin(request);
      return resource.list();
    },
  );
  app.post(
    base,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: describe.create,
        body: spec.save,
        response: { 200: spec.details, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return resource.create(spec.parseSave(request.body));
    },
  );
  app.get(
    `${base}/:id`,
    { schema: { tags, summary: describe.get, params, response: { 200: spec.details, ...authErrors } } },
    async (request) => {
      admin(request);
      return resource.get(idOf(request));
    },
  );
  app.put(
    `${base}/:id`,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: describe.update,
        params,
        body: spec.save,
        response: { 200: spec.details, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return resource.update(idOf(request), spec.parseSave(request.body));
    },
  );
  app.delete(
    `${base}/:id`,
    { schema: { tags, summary: describe.delete, params, response: emptyOk } },
    async (request, reply) => {
      admin(request);
      await resource.delete(idOf(request));
      return reply.code(200).send(undefined);
    },
  );
  app.post(
    `${base}/:id/start`,
    {
      schema: {
        tags,
        summary: describe.start,
        params,
        body: spec.start,
        response: { 200: spec.summary, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return resource.start(idOf(request), spec.parseStart(request.body));
    },
  );
  app.post(
    `${base}/:id/stop`,
    {
      schema: {
        tags,
        summary: describe.stop,
        params,
        body: NoBody,
        response: { 200: spec.summary, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return resource.stop(idOf(request));
    },
  );
}

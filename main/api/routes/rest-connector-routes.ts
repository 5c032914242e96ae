import { Type } from 'typebox';
import {
  ConvertersInfo,
  DEFAULT_REST_CONFIG,
  OutgoingLogEntry,
  RequestLogEntry,
  RestConfigSchema,
  RestConfigValidationSchema,
  RestConnectorDetails,
  RestConnectorSummary,
  RestEndpointInfo,
  SaveRestConnectorRequest,
  TestRequest,
  TestResponse,
  validateRestConfig,
} from '../../../shared/schemas/rest-connector.ts';
import { requireTenantAdmin } from '../../platform/auth/principal.ts';
import type { RestConnectorManager } from '../../connectors/rest-connector-manager.ts';
import { principalOf } from '../authenticate.ts';
import { authErrors, ownValidation, type Api } from '../route-types.ts';
import { NoBody, registerRunnableResourceRoutes, runErrors } from './runnable-resource-routes.ts';

export interface RestConnectorRouteDeps {
  manager: RestConnectorManager;
}

const BASE = '/api/sandboard/restConnectors';
const tags = ['REST Connector'];
const IdParam = Type.Object({ id: Type.String({ description: 'connector id' }) });
const LimitQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1000, description: 'newest entries (default 100)' }),
  ),
});

/**
 * The "REST Connector" page's API (tenant administrators): saved connectors with their gateways, start
 * and stop, validation with JSON paths, the JSON schema and template of rest.json, endpoints with curl
 * commands, the request log, the outgoing-call log and a request tester.
 */
export function registerRestConnectorRoutes(app: Api, { manager }: RestConnectorRouteDeps): void {
  const admin = (request: Parameters<typeof principalOf>[0]) => requireTenantAdmin(principalOf(request));

  app.get(
    `${BASE}/schema`,
    {
      schema: {
        tags,
        summary: 'JSON schema of rest.json (both formats), for an editor with validation and completion',
        response: { 200: Type.Unknown(), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return RestConfigSchema;
    },
  );
  app.get(
    `${BASE}/template`,
    {
      schema: {
        tags,
        summary: "The gateway's default rest.json (thingsboard-gateway 3.8), a template for a new connector",
        response: { 200: Type.Unknown(), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return DEFAULT_REST_CONFIG;
    },
  );
  app.get(
    `${BASE}/converters`,
    {
      schema: {
        tags,
        summary: 'The custom converter modules of the data directory (for converter type "custom")',
        description:
          'A mapping whose converter is {"type": "custom", "extension": "ClassName"} uses the class ' +
          'ClassName exported by a module of this folder (ClassName.mjs or ClassName.js first). Modules are ' +
          'listed, not run; a connector loads them when it starts.',
        response: { 200: ConvertersInfo, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.converters();
    },
  );
  app.post(
    `${BASE}/validate`,
    {
      ...ownValidation,
      schema: {
        tags,
        summary: 'Check a rest.json: errors and warnings, each with its JSON path',
        body: Type.Object({ config: Type.Unknown({ description: 'the content of rest.json' }) }),
        response: { 200: RestConfigValidationSchema, ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      const body = request.body as { config?: unknown } | undefined;
      return validateRestConfig(body?.config);
    },
  );

  registerRunnableResourceRoutes(app, manager, {
    base: BASE,
    tags,
    idParams: IdParam,
    summary: RestConnectorSummary,
    details: RestConnectorDetails,
    save: SaveRestConnectorRequest,
    parseSave: saveRequest,
    start: NoBody,
    parseStart: () => undefined,
    describe: {
      list: 'Saved REST connectors with their state and counters',
      create: 'Save a new connector (400 lists the bad JSON paths of rest.json)',
      get: 'A connector with its rest.json and its validation',
      update: 'Replace a connector (a running one restarts with the new rest.json)',
      delete: 'Stop and delete a connector (its gateway device stays)',
      start: 'Start: provision the gateway device, connect over MQTT, listen (502 says why it did not start)',
      stop: 'Stop a connector',
    },
  });
  app.post(
    `${BASE}/:id/selfSignedCertificate`,
    {
      schema: {
        tags,
        summary: 'Make a self-signed certificate and key (openssl) and switch the connector to HTTPS',
        params: IdParam,
        body: NoBody,
        response: { 200: RestConnectorDetails, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.selfSignedCertificate(request.params.id);
    },
  );
  app.get(
    `${BASE}/:id/endpoints`,
    {
      schema: {
        tags,
        summary: 'Every endpoint and method with a ready-made curl command',
        params: IdParam,
        response: { 200: Type.Array(RestEndpointInfo), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.endpoints(request.params.id);
    },
  );
  app.get(
    `${BASE}/:id/requests`,
    {
      schema: {
        tags,
        summary: 'The latest requests the connector answered, newest first',
        params: IdParam,
        querystring: LimitQuery,
        response: { 200: Type.Array(RequestLogEntry), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.requestLog(request.params.id, request.query.limit ?? 100);
    },
  );
  app.get(
    `${BASE}/:id/outgoing`,
    {
      schema: {
        tags,
        summary: 'The latest outgoing calls (attribute updates, RPC) with their tries, newest first',
        params: IdParam,
        querystring: LimitQuery,
        response: { 200: Type.Array(OutgoingLogEntry), ...authErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.outgoingLog(request.params.id, request.query.limit ?? 100);
    },
  );
  app.post(
    `${BASE}/:id/test`,
    {
      schema: {
        tags,
        summary:
          "Send a request (JSON, text or multipart) to a running connector's endpoint; its status and body",
        params: IdParam,
        body: TestRequest,
        response: { 200: TestResponse, ...runErrors },
      },
    },
    async (request) => {
      admin(request);
      return manager.test(request.params.id, request.body);
    },
  );
}

/** The save body, shape-checked here (the config itself by the connector's validator). */
function saveRequest(body: unknown): SaveRestConnectorRequest {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const fail = (path: string, message: string) => {
    throw Object.assign(new Error(`Invalid body: '${path}' ${message}`), { statusCode: 400 });
  };
  if (typeof b.name !== 'string' || b.name.trim() === '') fail('name', 'must be a non-empty string');
  if (b.gatewayName !== undefined && (typeof b.gatewayName !== 'string' || b.gatewayName.trim() === ''))
    fail('gatewayName', 'must be a non-empty string');
  if (b.config === undefined) fail('config', 'is required (the content of rest.json)');
  if (b.autostart !== undefined && typeof b.autostart !== 'boolean') fail('autostart', 'must be a boolean');
  const target = b.target as Record<string, unknown> | undefined;
  if (target !== undefined && (typeof target !== 'object' || target === null))
    fail('target', 'must be an object');
  if (target?.url !== undefined && typeof target.url !== 'string') fail('target.url', 'must be a string');
  if (target?.token !== undefined && typeof target.token !== 'string')
    fail('target.token', 'must be a string');
  if (target?.ca !== undefined && typeof target.ca !== 'string') fail('target.ca', 'must be a string (PEM)');
  if (target?.insecure !== undefined && typeof target.insecure !== 'boolean')
    fail('target.insecure', 'must be a boolean');
  return {
    name: (b.name as string).trim(),
    config: b.config,
    ...(b.gatewayName !== undefined ? { gatewayName: (b.gatewayName as string).trim() } : {}),
    ...(b.autostart !== undefined ? { autostart: b.autostart as boolean } : {}),
    ...(target !== undefined
      ? {
          target: {
            ...(target.url !== undefined ? { url: target.url as string } : {}),
            ...(target.token !== undefined ? { token: target.token as string } : {}),
            ...(target.ca !== undefined ? { ca: target.ca as string } : {}),
            ...(target.insecure !== undefined ? { insecure: target.insecure as boolean } : {}),
          },
        }
      : {}),
  };
}

import { lazySchemaController } from './lazy-schema-compilers.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { installCustomerScope } from './customer-scope.ts';
import { installSocketClosing, REQUEST_RECEIVE_TIMEOUT_MS } from './socket-closing.ts';
import Fastify, { type FastifyInstance } from 'fastify';
import { installAuthentication } from './authenticate.ts';
import { errorServerOptions, installErrorHandlers, MAX_PARAM_LENGTH } from './errors.ts';
import { installHostCheck } from './host-check.ts';
import { installJsonBodyParser } from './json-body.ts';
import { installShellProof } from './shell-proof.ts';
import { registerOpenApi } from './openapi.ts';
import { installSpringParams } from './spring-params.ts';
import type { Api, RouteDeps } from './route-types.ts';
import { registerChainTestRoutes } from './routes/chain-test-routes.ts';
import type { ScratchRules } from '../rule-engine/chain-tests/run-cases.ts';
import { registerAlarmCommentRoutes } from './routes/alarm-comment-routes.ts';
import { registerAlarmRoutes } from './routes/alarm-routes.ts';
import { registerApiKeyRoutes } from './routes/api-key-routes.ts';
import { registerAssetRoutes } from './routes/asset-routes.ts';
import { registerAuthRoutes } from './routes/auth-routes.ts';
import { registerComponentRoutes } from './routes/component-routes.ts';
import { registerCustomerRoutes } from './routes/customer-routes.ts';
import { registerCalculatedFieldRoutes } from './routes/calculated-field-routes.ts';
import { registerDashboardRoutes } from './routes/dashboard-routes.ts';
import { ensurePushToEdgeAfterSave, registerDemoRoutes } from './routes/demo-routes.ts';
import { registerDeviceRoutes } from './routes/device-routes.ts';
import { registerEdgeRoutes } from './routes/edge-routes.ts';
import { registerEdgeSimulatorRoutes } from './routes/edge-simulator-routes.ts';
import { registerEntityQueryRoutes } from './routes/entity-query-routes.ts';
import { registerRelationRoutes } from './routes/relation-routes.ts';
import { registerEventRoutes } from './routes/event-routes.ts';
import type { RestConnectorManager } from '../connectors/rest-connector-manager.ts';
import type { TransportCore } from '../transport/device-messages.ts';
import { registerDeviceHttpRoutes } from '../transport/http/device-http-api.ts';
import { registerTransportLimitsRoutes } from './routes/transport-limits-routes.ts';
import { registerRestConnectorRoutes } from './routes/rest-connector-routes.ts';
import { registerExplorerRoutes } from './routes/explorer-routes.ts';
import { LiveStats, registerInfoRoutes, type PlatformLinks } from './routes/info-routes.ts';
import { registerMqttRoutes } from './routes/mqtt-routes.ts';
import { registerOtaPackageRoutes } from './routes/ota-package-routes.ts';
import { registerRecordingRoutes } from './routes/recording-routes.ts';
import { registerSandboxRoutes } from './routes/sandbox-routes.ts';
import { registerMqttSnippetRoutes } from './routes/mqtt-snippet-routes.ts';
import type { Recordings } from '../recording/recordings.ts';
import type { DeviceHttpTap } from '../transport/http/device-http-tap.ts';
import { registerMqttClientRoutes } from './routes/mqtt-client-routes.ts';
import type { MqttClientManager } from '../mqtt-client/client-manager.ts';
import type { MqttInspector } from '../transport/mqtt/mqtt-inspector.ts';
import { registerRpcAndClaimRoutes } from './routes/rpc-routes.ts';
import { registerRuleChainRoutes } from './routes/rule-chain-routes.ts';
import { registerRuleEngineRoutes } from './routes/rule-engine-routes.ts';
import { registerRuleScriptRoutes } from './routes/rule-script-routes.ts';
import { registerSimulationRoutes } from './routes/simulation-routes.ts';
import { readRecordingText, registerReplayRoutes } from './routes/replay-routes.ts';
import { embeddedUrl } from '../simulator/targets.ts';
import type { Analytics } from '../analytics/analytics.ts';
import { registerShippedSandboxRoutes } from './routes/shipped-sandbox-routes.ts';
import { registerTableViewRoutes } from './routes/table-view-routes.ts';
import { registerTelemetryRoutes } from './routes/telemetry-routes.ts';
import { registerTenantRoutes } from './routes/tenant-routes.ts';
import { registerUserRoutes } from './routes/user-routes.ts';
import { registerUiRoutes } from './routes/ui-routes.ts';
import { registerWidgetRoutes } from './routes/widget-routes.ts';
import { registerWsRoutes } from './routes/ws-routes.ts';
import { registerTbWsRoutes } from './tb-ws/tb-ws-routes.ts';

export interface ApiServerOptions {
  version: string;
  bodyLimitBytes: number;
  allowedHosts: Set<string>;
  logLevel: string;
  /** the platform's URLs and broker counters, for the UI's info and stats endpoints */
  links?: PlatformLinks;
  /** table views, reports and demo data (shared with the report API server) */
  analytics?: Analytics;
  /** the app's REST connectors (gateway runtimes), for the REST Connector page */
  restConnectors?: RestConnectorManager;
  /** the transports' core: with it, the device HTTP API (/api/v1/{token}/...) is served */
  deviceTransport?: { core: TransportCore; defaultTimeoutMs: number; tap?: DeviceHttpTap };
  /** recordings of device traffic and its outcomes (/api/sandboard/recordings) */
  recordings?: Recordings;
  /** the broker's sessions and traffic inspector, for the MQTT page */
  mqttInspector?: MqttInspector;
  /** the in-app MQTT client's connections */
  mqttClients?: MqttClientManager;
  /** desktop installs: the shell's per-launch secret (see shell-proof.ts) */
  shellSecret?: string;
  /** with it, rule chain tests run (POST /api/sandboard/ruleChain/{id}/test), each in a scratch platform */
  chainTests?: { scratchRules: () => Promise<ScratchRules> };
}

/**
 * Below info, Fastify logs nothing per request: each request then shares the server's logger instead of
 * getting a child of its own (pino binds the request id into every child, a cost on every request).
 * Errors still name their request (errors.ts logs reqId).
 */
function quietRequestLoggers(app: FastifyInstance, level: string): void {
  if (!['info', 'debug', 'trace'].includes(level)) app.setChildLoggerFactory((logger) => logger);
}

/** The platform's Fastify app: REST with ThingsBoard's paths, the OpenAPI document and the explorer. */
export async function buildApiServer(deps: RouteDeps, options: ApiServerOptions): Promise<FastifyInstance> {
  const { services } = deps;
  const app = Fastify({
    ...errorServerOptions(),
    bodyLimit: options.bodyLimitBytes,
    requestTimeout: REQUEST_RECEIVE_TIMEOUT_MS,
    forceCloseConnections: true,
    logger: { level: options.logLevel, stream: process.stderr },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: false } },
    schemaController: lazySchemaController(),
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<TypeBoxTypeProvider>();

  quietRequestLoggers(app, options.logLevel);
  installErrorHandlers(app);
  installSocketClosing(app);
  installSpringParams(app);
  installJsonBodyParser(app);
  installShellProof(app, options.shellSecret);
  installHostCheck(app, options.allowedHosts);
  installAuthentication(app, services.auth);
  installCustomerScope(app);
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('content-security-policy'))
      reply.header('content-security-policy', "frame-ancestors 'self'");
    done(null, payload);
  });
  await registerOpenApi(app, options.version);
  const api = app as unknown as Api;
  registerAuthRoutes(api, deps);
  registerApiKeyRoutes(api, deps);
  registerCustomerRoutes(api, deps);
  registerUserRoutes(api, deps);
  registerTenantRoutes(api, deps);
  registerDeviceRoutes(api, deps);
  registerOtaPackageRoutes(api, deps);
  registerTelemetryRoutes(api, deps);
  registerAssetRoutes(api, deps);
  registerDashboardRoutes(api, deps);
  registerCalculatedFieldRoutes(api, deps);
  registerWidgetRoutes(api, deps);
  registerAlarmRoutes(api, deps);
  registerAlarmCommentRoutes(api, deps);
  registerRelationRoutes(api, deps);
  registerEntityQueryRoutes(api, deps);
  registerRuleChainRoutes(api, deps);
  registerRuleScriptRoutes(api);
  if (options.chainTests) registerChainTestRoutes(api, { ...deps, ...options.chainTests });
  registerRuleEngineRoutes(api, deps);
  registerComponentRoutes(api, deps);
  registerEventRoutes(api, deps);
  registerRpcAndClaimRoutes(api, deps);
  registerEdgeRoutes(api, deps);
  const edgeSimulators = registerEdgeSimulatorRoutes(api, deps);
  const simulations = registerSimulationRoutes(api, {
    services,
    mqttUrl: () => options.links?.urls?.()?.mqtt,
  });
  registerDemoRoutes(api, { services, ruleChains: deps.ruleChains, simulations, edgeSimulators });
  registerShippedSandboxRoutes(api, {
    services,
    ruleChains: deps.ruleChains,
    simulations,
    edgeSimulators,
    ...(options.restConnectors ? { restConnectors: options.restConnectors } : {}),
    ensurePushToEdge: (actor) => ensurePushToEdgeAfterSave(deps.ruleChains, actor),
  });
  const recordings = options.recordings;
  registerReplayRoutes(api, {
    urls: () => {
      const urls = options.links?.urls?.();
      return urls ? { http: embeddedUrl(urls.http), mqtt: embeddedUrl(urls.mqtt) } : undefined;
    },
    ...(recordings ? { readRecording: (id: string) => readRecordingText(recordings, id) } : {}),
  });
  registerTableViewRoutes(api, { services, analytics: options.analytics });
  await registerSandboxRoutes(app, { services, ruleChains: deps.ruleChains });
  registerMqttSnippetRoutes(api, { services });
  if (options.restConnectors) registerRestConnectorRoutes(api, { manager: options.restConnectors });
  if (options.deviceTransport) {
    const { core, defaultTimeoutMs, tap } = options.deviceTransport;
    await registerDeviceHttpRoutes(app, core, { defaultTimeoutMs, ...(tap ? { tap } : {}) });
    registerTransportLimitsRoutes(api, { services, limiter: core.limiter });
  }
  if (options.mqttInspector) registerMqttRoutes(api, { inspector: options.mqttInspector });
  if (options.recordings) registerRecordingRoutes(api, { recordings: options.recordings });
  if (options.mqttClients)
    registerMqttClientRoutes(api, {
      services,
      manager: options.mqttClients,
      brokerUrl: () => options.links?.urls?.()?.mqtt,
    });
  await registerExplorerRoutes(app);
  // The UI's own endpoints, its live WebSocket, and the built UI itself at /.
  const stats = new LiveStats(services, options.links);
  app.addHook('onClose', async () => stats.stop());
  registerInfoRoutes(api, { services, stats, links: options.links ?? {}, version: options.version });
  await registerWsRoutes(app, {
    services,
    stats,
    allowedHosts: options.allowedHosts,
    ...(options.mqttInspector ? { mqttInspector: options.mqttInspector } : {}),
  });
  registerTbWsRoutes(app, { services });
  await registerUiRoutes(app);
  return app;
}

import type { FastifyInstance } from 'fastify';
import type { Analytics } from '../analytics/analytics.ts';
import { allowedHosts } from '../api/host-check.ts';
import { startReportApiServer } from '../api/report-api-server.ts';
import type { RouteDeps } from '../api/route-types.ts';
import { buildApiServer, type ApiServerOptions } from '../api/server.ts';
import type { PlatformConfig } from '../config.ts';
import { VERSION } from '../version.ts';
import type { Lifecycle } from './lifecycle.ts';

export interface HttpServers {
  api: FastifyInstance;
  reportApi: FastifyInstance;
}

/** The platform's REST API (with the UI and the explorer) and the report API, listening. */
export async function setupHttp(
  deps: RouteDeps,
  options: Pick<
    ApiServerOptions,
    | 'analytics'
    | 'links'
    | 'restConnectors'
    | 'deviceTransport'
    | 'chainTests'
    | 'mqttInspector'
    | 'mqttClients'
    | 'recordings'
  > & {
    analytics: Analytics;
  },
  config: PlatformConfig,
  life: Lifecycle,
): Promise<HttpServers> {
  const hosts = allowedHosts(config.host, config.extraAllowedHosts);
  const api = await buildApiServer(deps, {
    ...options,
    version: VERSION,
    bodyLimitBytes: config.bodyLimitBytes,
    allowedHosts: hosts,
    logLevel: config.logLevel,
    ...(config.shellSecret ? { shellSecret: config.shellSecret } : {}),
  });
  // Waiting RPC and rule engine calls end first, so that closing the server does not wait for them.
  life.onStop(async () => {
    deps.services.rpc.stop();
    deps.services.restApiCalls.stop();
    await api.close();
  });
  await api.listen({ host: config.host, port: config.httpPort });

  const reportApi = await startReportApiServer(options.analytics, {
    host: config.host,
    port: config.analyticsPort,
    bodyLimitBytes: config.bodyLimitBytes,
    allowedHosts: hosts,
    logLevel: config.logLevel,
    version: VERSION,
    ...(config.shellSecret ? { shellSecret: config.shellSecret } : {}),
  });
  life.onStop(() => reportApi.close());
  return { api, reportApi };
}

import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { Analytics, analyticsSettings } from '../analytics/analytics.ts';
import type { PlatformConfig } from '../config.ts';
import type { EdgeQueue } from '../edge/edge-queue.ts';
import type { Services } from '../platform/services.ts';
import type { RuleChainService } from '../rule-engine/rule-chain-service.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import type { DurableDb } from '../store/durable-db.ts';
import type { MqttTransport } from '../transport/mqtt/mqtt-transport.ts';
import { setupConnectors } from './connectors.ts';
import { setupDomain } from './domain.ts';
import { setupEventLoopMonitor } from './event-loop.ts';
import { setupHttp } from './http.ts';
import { closeSimulatorSandbox } from '../simulator/device-script.ts';
import { Lifecycle } from './lifecycle.ts';
import { setupMqtt, setupMqttClients, setupTransportCore } from './mqtt.ts';
import { setupRecordings } from './recordings.ts';
import { setupRuleEngine } from './rule-engine.ts';
import type { CalculatedFieldEngine } from '../rule-engine/calculated-fields/cf-engine.ts';
import { DeviceHttpTap } from '../transport/http/device-http-tap.ts';
import { startScratchRules } from './scratch-rules.ts';
import { setupStore, type StoreOpening } from './store.ts';

export interface PlatformUrls {
  http: string;
  mqtt: string;
  analytics: string;
  dataDir: string;
}

export interface Platform {
  urls: PlatformUrls;
  services: Services;
  ruleChains: RuleChainService;
  engine: RuleEngine;
  edgeQueue: EdgeQueue;
  calculatedFields: CalculatedFieldEngine;
  db: DurableDb;
  /** demo logins created by this start (first start only) */
  seededLogins: { email: string; password: string }[];
  mqtt: MqttTransport;
  /** the REST API's Fastify app (its route table: hasRoute) */
  api: FastifyInstance;
  stop(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * The composition root: builds and starts everything (store, domain, rule engine, broker, connectors,
 * analytics, HTTP), each by its own setup step, and stops it all in reverse. `store`: the data directory
 * already being opened (beginStore), so that a long replay overlaps the loading of this module's imports.
 */
export async function startPlatform(config: PlatformConfig, store?: StoreOpening): Promise<Platform> {
  const life = new Lifecycle();
  // first registered, so it runs last: after the simulations that use it have stopped
  life.onStop(() => closeSimulatorSandbox());
  try {
    const db = await setupStore(config, life, store);
    performance.mark('start: store open');
    const { services, seededLogins } = await setupDomain(db, config, life);
    performance.mark('start: domain');
    const { ruleChains, engine, edgeQueue, calculatedFields } = await setupRuleEngine(services, config, life);
    performance.mark('start: rule engine');
    const transport = setupTransportCore(services, engine, config, life);
    const mqtt = await setupMqtt(transport, config, life);
    performance.mark('start: mqtt listening');
    const h = urlHost(config.host);
    const mqttUrl = `mqtt://${h}:${mqtt.port}`;
    const httpTap = new DeviceHttpTap();
    const recordings = await setupRecordings(services, mqtt, httpTap, config, life);
    const restConnectors = setupConnectors(services, () => mqttUrl, config, life);
    // Table views, report slots and workers: shared by the platform REST and the report API.
    const analytics = new Analytics(services, analyticsSettings(config));
    life.onStop(() => analytics.close());

    const live: { urls?: PlatformUrls } = {}; // the URLs, once every listener is up (the UI shows them)
    const eventLoop = setupEventLoopMonitor(life, () => services.ctx.db.sizeBytes().allocatedBytes);
    const { api, reportApi } = await setupHttp(
      { services, ruleChains, edgeQueue },
      {
        analytics,
        restConnectors,
        deviceTransport: { core: transport, defaultTimeoutMs: config.httpRequestTimeoutMs, tap: httpTap },
        recordings,
        mqttInspector: mqtt.inspector,
        mqttClients: setupMqttClients(life),
        links: { urls: () => live.urls, mqttSessions: () => mqtt.stats().sessions, eventLoop },
        chainTests: { scratchRules: startScratchRules },
      },
      config,
      life,
    );
    performance.mark('start: http listening');
    const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
    const urls: PlatformUrls = {
      http: `http://${h}:${port(api.server)}`,
      mqtt: mqttUrl,
      analytics: `http://${h}:${port(reportApi.server)}`,
      dataDir: config.dataDir,
    };
    live.urls = urls;
    // user code that runs on its own (generator nodes) starts once MQTT and HTTP answer
    engine.startNodes();
    await restConnectors.autostart();
    performance.mark('start: connectors');
    return {
      urls,
      services,
      ruleChains,
      engine,
      edgeQueue,
      calculatedFields,
      db,
      seededLogins,
      mqtt,
      api,
      stop: () => life.stop(),
    };
  } catch (err) {
    await life.stop().catch(() => undefined);
    throw err;
  }
}

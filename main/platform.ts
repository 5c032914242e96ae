import type { AddressInfo, Server } from 'node:net';
import { allowedHosts } from './api/host-check.ts';
import { buildApiServer } from './api/server.ts';
import type { PlatformConfig } from './config.ts';
import { loadOrCreateSigningKey } from './platform/auth/signing-key.ts';
import { createContext } from './platform/context.ts';
import { createServices, type Services } from './platform/services.ts';
import { seedRootRuleChain } from './rule-engine/default-root-chain.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { setupMqttTransport, type MqttTransport } from './transport/mqtt/mqtt-transport.ts';
import { DurableDb } from './store/durable-db.ts';
import { RestConnectorManager } from './gateway/rest-connector-manager.ts';
import { migrations } from './store/migrations.ts';
import { VERSION } from './version.ts';
import { Analytics, analyticsSettings } from './analytics/analytics.ts';
import { startReportApiServer } from './analytics/report-api-server.ts';

export interface PlatformUrls {
  http: string;
  mqtt: string;
  analytics: string;
  dataDir: string;
}

export interface Platform {
  urls: PlatformUrls;
  services: Services;
  db: DurableDb;
  /** demo logins created by this start (first start only) */
  seededLogins: { email: string; password: string }[];
  mqtt: MqttTransport;
  stop(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** Builds and starts everything: store, services, HTTP API, analytics and MQTT listeners. */
export async function startPlatform(config: PlatformConfig): Promise<Platform> {
  const lock = lockDataDir(config.dataDir);
  const cleanups: (() => Promise<void> | void)[] = [() => lock.release()];
  const runCleanups = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };
  try {
    const db = await DurableDb.open({ dir: config.dataDir, migrations });
    cleanups.push(() => db.close());
    const ctx = await createContext(db);
    const services = createServices(
      ctx,
      loadOrCreateSigningKey(config.dataDir),
      {
        accessTokenTtlSec: config.accessTokenTtlSec,
        refreshTokenTtlSec: config.refreshTokenTtlSec,
        issuer: config.jwtIssuer,
        loginMaxFailures: config.loginMaxFailures,
        loginWindowMs: config.loginWindowMs,
      },
      {
        claimDurationMs: config.claimDurationMs,
        edgeAckTimeoutMs: config.edgeAckTimeoutMs,
        edgeDeliveredRetentionMs: config.edgeDeliveredRetentionMs,
      },
    );
    await services.profiles.seedDefault();
    const seededLogins = await services.users.seedDemoUsers();
    await seedRootRuleChain(db, ctx.now());
    const verbose = config.logLevel === 'info' || config.logLevel === 'debug' || config.logLevel === 'trace';
    const engine = services.ruleChains.start(services, (line) => {
      if (verbose) process.stderr.write(`${line}\n`);
    });
    cleanups.push(() => services.rpc.stop());
    cleanups.push(() => services.edgeQueue.stop());

    if (!LOOPBACK_HOSTS.has(config.host)) {
      const defaults = services.users.usersWithDefaultPasswords();
      if (defaults.length > 0) {
        throw new Error(
          `Refusing to serve on ${config.host}: ${defaults.join(', ')} still ha${defaults.length > 1 ? 've' : 's'} the default password. ` +
            'Start on 127.0.0.1, log in and change the password (Security page or POST /api/auth/changePassword) first.',
        );
      }
    }

    await services.telemetry.applyRetention(config.telemetryRetentionDays);
    const retentionTimer = setInterval(() => {
      services.telemetry.applyRetention(config.telemetryRetentionDays).catch((err: unknown) => {
        process.stderr.write(`telemetry retention failed: ${(err as Error).message}\n`);
      });
    }, 3_600_000);
    retentionTimer.unref();
    cleanups.push(() => clearInterval(retentionTimer));

    const hosts = allowedHosts(config.host, config.extraAllowedHosts);
    const mqtt = await setupMqttTransport(services, engine, {
      host: config.host,
      port: config.mqttPort,
      maxPacketBytes: config.mqttMaxPacketBytes,
      deviceLimit: config.deviceLimit,
      inactivityTimeoutMs: config.inactivityTimeoutMs,
    });
    cleanups.push(() => mqtt.close());

    // The app's gateways with their REST connectors (started from the REST Connector page, or autostart).
    const restConnectors = new RestConnectorManager({
      services,
      dataDir: config.dataDir,
      mqttUrl: () => `mqtt://${urlHost(config.host)}:${mqtt.port}`,
      bodyLimitBytes: config.bodyLimitBytes,
      log: (level, line) => {
        if (verbose || (level !== 'info' && config.logLevel !== 'silent'))
          process.stderr.write(`${level}: ${line}\n`);
      },
    });
    cleanups.push(() => restConnectors.close());

    // Table views, report slots and workers: shared by the platform REST and the report API.
    const analytics = new Analytics(services, analyticsSettings(config));
    cleanups.push(() => analytics.close());

    const live: { urls?: PlatformUrls } = {}; // the URLs, once every listener is up (the UI shows them)
    const api = await buildApiServer(services, {
      analytics,
      links: { urls: () => live.urls, mqttSessions: () => mqtt.stats().sessions },
      version: VERSION,
      restConnectors,
      bodyLimitBytes: config.bodyLimitBytes,
      allowedHosts: hosts,
      logLevel: config.logLevel,
    });
    // Waiting RPC calls end first, so that closing the server does not wait for them.
    cleanups.push(async () => {
      services.rpc.stop();
      await api.close();
    });
    await api.listen({ host: config.host, port: config.httpPort });

    const reportApi = await startReportApiServer(analytics, {
      host: config.host,
      port: config.analyticsPort,
      bodyLimitBytes: config.bodyLimitBytes,
      allowedHosts: hosts,
      logLevel: config.logLevel,
      version: VERSION,
    });
    cleanups.push(() => reportApi.close());

    const h = urlHost(config.host);
    const port = (s: Server) => (s.address() as AddressInfo).port;
    const urls: PlatformUrls = {
      http: `http://${h}:${port(api.server)}`,
      mqtt: `mqtt://${h}:${mqtt.port}`,
      analytics: `http://${h}:${port(reportApi.server)}`,
      dataDir: config.dataDir,
    };
    live.urls = urls;
    await restConnectors.autostart();
    return { urls, services, db, seededLogins, mqtt, stop: runCleanups };
  } catch (err) {
    await runCleanups().catch(() => undefined);
    throw err;
  }
}

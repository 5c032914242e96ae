/**
 * A running gateway: its MQTT session with a ThingsBoard-compatible platform and its REST connector.
 * `sandboard gateway` runs one; the app's RestConnectorManager runs several.
 */
import { convertersDirOf } from './connectors/rest/converters.ts';
import { RestConnector, type LogLevel } from './connectors/rest/rest-connector.ts';
import type { RestConnectorConfig } from './connectors/rest/config.ts';
import { GatewayClient } from './gateway-client.ts';

export interface GatewayRuntimeOptions {
  name: string;
  /** mqtt://host:port of the platform */
  platformUrl: string;
  /** the gateway device's access token */
  token: string;
  config: RestConnectorConfig;
  /** <dataDir>/converters holds custom converters */
  dataDir: string;
  portOverride?: number;
  bodyLimitBytes?: number;
  batchWindowMs?: number;
  ca?: string;
  rejectUnauthorized?: boolean;
  untrustedCertificateHint?: string;
  log?: (level: LogLevel, line: string) => void;
}

export class GatewayRuntime {
  readonly gateway: GatewayClient;
  readonly connector: RestConnector;

  private constructor(gateway: GatewayClient, connector: RestConnector) {
    this.gateway = gateway;
    this.connector = connector;
  }

  static async start(options: GatewayRuntimeOptions): Promise<GatewayRuntime> {
    const gateway = await GatewayClient.connect({
      url: options.platformUrl,
      token: options.token,
      clientId: `sandboard-gw-${options.name.replace(/[^\w-]+/g, '-').slice(0, 40)}-${process.pid}-${Math.random().toString(16).slice(2, 8)}`,
      ...(options.batchWindowMs !== undefined ? { batchWindowMs: options.batchWindowMs } : {}),
      ...(options.ca !== undefined ? { ca: options.ca } : {}),
      ...(options.rejectUnauthorized !== undefined ? { rejectUnauthorized: options.rejectUnauthorized } : {}),
      ...(options.untrustedCertificateHint !== undefined
        ? { untrustedCertificateHint: options.untrustedCertificateHint }
        : {}),
    });
    gateway.on('disconnected', (why) =>
      options.log?.('warn', `[${options.name}] MQTT: ${why}; reconnecting`),
    );
    try {
      const connector = await RestConnector.start({
        name: options.name,
        config: options.config,
        gateway,
        convertersDir: convertersDirOf(options.dataDir),
        ...(options.portOverride !== undefined ? { portOverride: options.portOverride } : {}),
        ...(options.bodyLimitBytes !== undefined ? { bodyLimitBytes: options.bodyLimitBytes } : {}),
        ...(options.log ? { log: options.log } : {}),
      });
      return new GatewayRuntime(gateway, connector);
    } catch (err) {
      await gateway.close();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.connector.stop();
    await this.gateway.close();
  }
}

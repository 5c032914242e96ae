import type { PlatformConfig } from '../config.ts';
import type { Services } from '../platform/services.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import type { TransportCore } from '../transport/device-messages.ts';
import { setupMqttTransport, type MqttTransport } from '../transport/mqtt/mqtt-transport.ts';
import { MqttClientManager } from '../mqtt-client/client-manager.ts';
import { createTransportCore } from '../transport/transport-core.ts';
import type { Lifecycle } from './lifecycle.ts';

/** the budget the inspector gets when turned on from the UI after starting off */
const DEFAULT_INSPECTOR_BUDGET_BYTES = 16 * 1024 * 1024;

/** What MQTT and the device HTTP API share: activity, rate limits, the path into the rule engine. */
export function setupTransportCore(
  services: Services,
  engine: RuleEngine,
  config: PlatformConfig,
  life: Lifecycle,
): TransportCore {
  const { core, stop } = createTransportCore(services, engine, {
    deviceLimit: config.deviceLimit,
    inactivityTimeoutMs: config.inactivityTimeoutMs,
    maxPayloadSize: config.mqttMaxPacketBytes,
  });
  life.onStop(stop);
  return core;
}

/** The embedded broker with ThingsBoard's device and gateway API. */
export async function setupMqtt(
  core: TransportCore,
  config: PlatformConfig,
  life: Lifecycle,
): Promise<MqttTransport> {
  const mqtt = await setupMqttTransport(core, {
    host: config.host,
    port: config.mqttPort,
    maxPacketBytes: config.mqttMaxPacketBytes,
    inspector: {
      enabled: config.inspectorBudgetBytes > 0,
      budgetBytes: config.inspectorBudgetBytes || DEFAULT_INSPECTOR_BUDGET_BYTES,
    },
  });
  life.onStop(() => mqtt.close());
  return mqtt;
}

/** The in-app MQTT client's connections (closed when the platform stops). */
export function setupMqttClients(life: Lifecycle): MqttClientManager {
  const clients = new MqttClientManager();
  life.onStop(() => clients.stop());
  return clients;
}

import type { PlatformConfig } from '../config.ts';
import type { Services } from '../platform/services.ts';
import type { RuleEngine } from '../rule-engine/rule-engine.ts';
import { setupMqttTransport, type MqttTransport } from '../transport/mqtt/mqtt-transport.ts';
import type { Lifecycle } from './lifecycle.ts';

/** The embedded broker with ThingsBoard's device and gateway API. */
export async function setupMqtt(
  services: Services,
  engine: RuleEngine,
  config: PlatformConfig,
  life: Lifecycle,
): Promise<MqttTransport> {
  const mqtt = await setupMqttTransport(services, engine, {
    host: config.host,
    port: config.mqttPort,
    maxPacketBytes: config.mqttMaxPacketBytes,
    deviceLimit: config.deviceLimit,
    inactivityTimeoutMs: config.inactivityTimeoutMs,
  });
  life.onStop(() => mqtt.close());
  return mqtt;
}

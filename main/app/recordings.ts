import { join } from 'node:path';
import type { PlatformConfig } from '../config.ts';
import type { Services } from '../platform/services.ts';
import { Recordings } from '../recording/recordings.ts';
import type { DeviceHttpTap } from '../transport/http/device-http-tap.ts';
import type { MqttTransport } from '../transport/mqtt/mqtt-transport.ts';
import { VERSION } from '../version.ts';
import type { Lifecycle } from './lifecycle.ts';

/** Recordings of device traffic and its outcomes, in DATA_DIR/recordings; those under way end at stop. */
export async function setupRecordings(
  services: Services,
  mqtt: MqttTransport,
  httpTap: DeviceHttpTap,
  config: PlatformConfig,
  life: Lifecycle,
): Promise<Recordings> {
  const recordings = await Recordings.open(
    {
      events: services.ctx.events,
      mqttTap: mqtt.tap,
      registry: mqtt.registry,
      httpTap,
      devices: services.devices,
      edgeName: (id) => services.edges.findRow(id)?.name,
      version: VERSION,
    },
    {
      dir: join(config.dataDir, 'recordings'),
      maxBytes: config.recordingMaxBytes,
      totalMaxBytes: config.recordingsMaxBytes,
    },
  );
  life.onStop(() => recordings.close());
  return recordings;
}

import { createRequire } from 'node:module';
import type * as Mqtt from 'mqtt';

const require = createRequire(import.meta.url);
let lib: typeof Mqtt | undefined;

/**
 * mqtt.js (the client), loaded when a first client connects: about 100 modules that the platform's start
 * does not need (gateways, simulators, replays and the MQTT client page all connect later, if at all).
 */
export function mqttLib(): typeof Mqtt {
  return (lib ??= require('mqtt') as typeof Mqtt);
}

import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { anyJson, anyObject, fuzzParams, nastyString, toJsonText } from '../../../helpers/fuzz.ts';
import { useSharedPlatform } from '../../api/api-kit.ts';
import { closeAll, connect, newDevice, publish, publishOk, type Api } from './mqtt-kit.ts';

/** Every reason code the MQTT API documents for a refused publish; 0x80 (an unexpected failure) is not one. */
const DOCUMENTED = new Set([0x00, 0x83, 0x87, 0x90, 0x97, 0x99]);

const DEVICE_TOPICS = [
  'v1/devices/me/telemetry',
  'v1/devices/me/attributes',
  'v1/devices/me/attributes/request/1',
  'v1/devices/me/rpc/request/7',
  'v1/devices/me/rpc/response/3',
  'v1/devices/me/claim',
];
const GATEWAY_TOPICS = [
  'v1/gateway/connect',
  'v1/gateway/disconnect',
  'v1/gateway/telemetry',
  'v1/gateway/attributes',
  'v1/gateway/attributes/request',
  'v1/gateway/rpc',
  'v1/gateway/claim',
];

/** Payloads shaped like each topic's, with anything in their places, and anything at all. */
const deviceName = fc.oneof(fc.constantFrom('fz-a', 'fz-b', 'fz-c'), nastyString);
const entry = fc.oneof(anyObject, fc.record({ ts: anyJson, values: fc.oneof(anyObject, anyJson) }));
const shaped = fc.oneof(
  fc.dictionary(deviceName, fc.array(entry, { maxLength: 3 }), { maxKeys: 3 }),
  fc.dictionary(deviceName, anyObject, { maxKeys: 3 }),
  fc.record({ device: fc.oneof(deviceName, anyJson), type: fc.oneof(nastyString, anyJson) }),
  fc.record({ id: anyJson, device: deviceName, client: anyJson, key: anyJson, keys: anyJson }),
  fc.record({ device: deviceName, id: anyJson, data: anyJson }),
  fc.record({ method: fc.oneof(nastyString, anyJson), params: anyJson }),
  fc.record({ clientKeys: anyJson, sharedKeys: anyJson, secretKey: anyJson, durationMs: anyJson }),
  fc.array(entry, { maxLength: 4 }),
);
const payload = fc.oneof(
  shaped.map(toJsonText),
  anyJson.map(toJsonText),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)),
  fc.constantFrom('', '{', 'null', '"x"', '[]', '{"ts":null,"values":{"t":1}}'),
);

/**
 * MQTT payloads for every device and gateway topic, over MQTT 5 (where each refusal has a reason code).
 * Properties: a documented reason code, no crash, and the broker still takes a good publish afterwards.
 */
describe('MQTT fuzzing of the device and gateway APIs', () => {
  const platform = useSharedPlatform();
  afterAll(closeAll);

  it(
    'answers every payload on every topic with a documented reason code, and keeps serving',
    { timeout: 120_000 },
    async () => {
      const p = platform();
      const api: Api = { p, token: await p.login() };
      const device = await newDevice(api, 'fuzz-device');
      const gateway = await newDevice(api, 'fuzz-gateway', { gateway: true });
      const clients = {
        device: await connect(p.urls.mqtt, device.accessToken, 5),
        gateway: await connect(p.urls.mqtt, gateway.accessToken, 5),
      };
      const publishes = fc.oneof(
        fc.tuple(fc.constant('device' as const), fc.constantFrom(...DEVICE_TOPICS), payload),
        fc.tuple(
          fc.constant('gateway' as const),
          fc.constantFrom(...GATEWAY_TOPICS, ...DEVICE_TOPICS),
          payload,
        ),
        fc.tuple(
          fc.constantFrom('device' as const, 'gateway' as const),
          nastyString.filter(
            (t) => t !== '' && ![...t].some((c) => c === '#' || c === '+' || c.charCodeAt(0) === 0),
          ),
          payload,
        ),
      );
      const seen = new Map<string, number>();
      await fc.assert(
        fc.asyncProperty(publishes, async ([who, topic, body]) => {
          let client = clients[who];
          if (!client.connected)
            client = clients[who] = await connect(
              p.urls.mqtt,
              who === 'device' ? device.accessToken : gateway.accessToken,
              5,
            );
          const outcome = await publish(client, topic, body);
          const what = `${who} ${topic} ${String(body).slice(0, 200)} -> ${JSON.stringify(outcome)}`;
          seen.set(String(outcome.code), (seen.get(String(outcome.code)) ?? 0) + 1);
          // a malformed topic name may make the broker drop the connection (a protocol error), never the process
          if (outcome.code === 'closed') return;
          expect(DOCUMENTED.has(outcome.code), what).toBe(true);
        }),
        fuzzParams(400),
      );
      for (const who of ['device', 'gateway'] as const) {
        const client = clients[who].connected
          ? clients[who]
          : await connect(p.urls.mqtt, who === 'device' ? device.accessToken : gateway.accessToken, 5);
        await publishOk(client, 'v1/devices/me/telemetry', { still: 'serving' });
      }
    },
  );
});

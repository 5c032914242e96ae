import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { useSharedPlatform } from '../../api/api-kit.ts';
import {
  closeAll,
  closedByBroker,
  connect,
  deviceByName,
  expectRefused,
  newDevice,
  publish,
  publishOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt-kit.ts';

const PAYLOAD_FORMAT_INVALID = 0x99;
const TOPIC_NAME_INVALID = 0x90;
/** ThingsBoard's answer to an attribute request it cannot process */
const IMPLEMENTATION_SPECIFIC_ERROR = 0x83;
const MAX_PACKET_BYTES = 65_536; // the default mqttMaxPacketBytes
/** JSON nested 4,600 levels deep: JSON.stringify of it overflows V8's stack */
const DEEP = '{"a":'.repeat(4_600) + '1' + '}'.repeat(4_600);

interface Case {
  topic: string;
  payload: unknown;
  code: number;
  /** what the case is about */
  what: string;
}

/** Bad publishes a device (not a gateway) can make. */
const DEVICE_CASES: Case[] = [
  {
    what: 'non-JSON telemetry',
    topic: 'v1/devices/me/telemetry',
    payload: '{"t": 1',
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'non-JSON attributes',
    topic: 'v1/devices/me/attributes',
    payload: 'hello',
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attributes as an array',
    topic: 'v1/devices/me/attributes',
    payload: [{ a: 1 }],
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry as a number',
    topic: 'v1/devices/me/telemetry',
    payload: '42',
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry array of numbers',
    topic: 'v1/devices/me/telemetry',
    payload: [1, 2],
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'ts that is not a number',
    topic: 'v1/devices/me/telemetry',
    payload: { ts: 'yesterday', values: { t: 1 } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'values that are not an object',
    topic: 'v1/devices/me/telemetry',
    payload: { ts: 1, values: [1] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry nested 4,600 levels',
    topic: 'v1/devices/me/telemetry',
    payload: `{"t":${DEEP}}`,
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attributes nested 4,600 levels',
    topic: 'v1/devices/me/attributes',
    payload: `{"a":${DEEP}}`,
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'an RPC answer nested 4,600 levels',
    topic: 'v1/devices/me/rpc/response/1',
    payload: DEEP,
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'ts null',
    topic: 'v1/devices/me/telemetry',
    payload: { ts: null, values: { t: 1 } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'ts 1e300',
    topic: 'v1/devices/me/telemetry',
    payload: '{"ts":1e300,"values":{"t":1}}',
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'ts empty string',
    topic: 'v1/devices/me/telemetry',
    payload: { ts: '', values: { t: 1 } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'blank telemetry key',
    topic: 'v1/devices/me/telemetry',
    payload: { ' ': 1 },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry key of 256 characters',
    topic: 'v1/devices/me/telemetry',
    payload: { ['k'.repeat(256)]: 1 },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'empty attribute key',
    topic: 'v1/devices/me/attributes',
    payload: { '': 1 },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'empty telemetry map',
    topic: 'v1/devices/me/telemetry',
    payload: {},
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'empty attribute map',
    topic: 'v1/devices/me/attributes',
    payload: {},
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'client RPC without a method',
    topic: 'v1/devices/me/rpc/request/1',
    payload: { params: {} },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attribute request as an array',
    topic: 'v1/devices/me/attributes/request/1',
    payload: ['a'],
    code: PAYLOAD_FORMAT_INVALID,
  },
  { what: 'claim as a string', topic: 'v1/devices/me/claim', payload: '"key"', code: PAYLOAD_FORMAT_INVALID },
  {
    what: 'unknown device topic',
    topic: 'v1/devices/me/unknown',
    payload: { a: 1 },
    code: TOPIC_NAME_INVALID,
  },
  {
    what: 'attribute request without a numeric id',
    topic: 'v1/devices/me/attributes/request/abc',
    payload: {},
    code: TOPIC_NAME_INVALID,
  },
  { what: 'a topic outside the API', topic: 'sensors/room1', payload: { a: 1 }, code: TOPIC_NAME_INVALID },
  {
    what: 'gateway topic from a device that is not a gateway',
    topic: 'v1/gateway/telemetry',
    payload: { A: [{ t: 1 }] },
    code: TOPIC_NAME_INVALID,
  },
];

/** Bad publishes of a gateway on the gateway topics. */
const GATEWAY_CASES: Case[] = [
  { what: 'non-JSON connect', topic: 'v1/gateway/connect', payload: 'dev', code: PAYLOAD_FORMAT_INVALID },
  {
    what: 'connect as an array',
    topic: 'v1/gateway/connect',
    payload: [{ device: 'x' }],
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'connect without device',
    topic: 'v1/gateway/connect',
    payload: { type: 't' },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'device name that is a number',
    topic: 'v1/gateway/connect',
    payload: { device: 5 },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'empty device name',
    topic: 'v1/gateway/disconnect',
    payload: { device: '' },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'non-JSON telemetry',
    topic: 'v1/gateway/telemetry',
    payload: '{A:[]}',
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry as an array',
    topic: 'v1/gateway/telemetry',
    payload: [{ A: [{ t: 1 }] }],
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry entry with a bad ts',
    topic: 'v1/gateway/telemetry',
    payload: { A: [{ ts: 'now', values: { t: 1 } }] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attributes of a device that are not an object',
    topic: 'v1/gateway/attributes',
    payload: { A: 5 },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attribute request with a string id',
    topic: 'v1/gateway/attributes/request',
    payload: { id: '1', device: 'A', client: true, key: 'k' },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attribute request without keys',
    topic: 'v1/gateway/attributes/request',
    payload: { id: 1, device: 'A', client: true },
    code: IMPLEMENTATION_SPECIFIC_ERROR,
  },
  {
    what: 'RPC reply with a string id',
    topic: 'v1/gateway/rpc',
    payload: { device: 'A', id: '1', data: {} },
    code: PAYLOAD_FORMAT_INVALID,
  },
  { what: 'non-JSON claim', topic: 'v1/gateway/claim', payload: 'x', code: PAYLOAD_FORMAT_INVALID },
  {
    what: 'telemetry of a device named ""',
    topic: 'v1/gateway/telemetry',
    payload: { '': [{ t: 1 }] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'attributes of a device named ""',
    topic: 'v1/gateway/attributes',
    payload: { '': { a: 1 } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry of a blank device name',
    topic: 'v1/gateway/telemetry',
    payload: { '   ': [{ t: 1 }] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'claim of a device named ""',
    topic: 'v1/gateway/claim',
    payload: { '': { secretKey: 'k' } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'connect with a blank name',
    topic: 'v1/gateway/connect',
    payload: { device: ' \t ' },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'connect with a 256-character name',
    topic: 'v1/gateway/connect',
    payload: { device: 'd'.repeat(256) },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'telemetry with a good and a blank device: neither is created',
    topic: 'v1/gateway/telemetry',
    payload: { A: [{ t: 1 }], '': [{ t: 1 }] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'gateway telemetry nested 4,600 levels',
    topic: 'v1/gateway/telemetry',
    payload: `{"A":[{"t":${DEEP}}]}`,
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'gateway telemetry with ts null',
    topic: 'v1/gateway/telemetry',
    payload: { A: [{ ts: null, values: { t: 1 } }] },
    code: PAYLOAD_FORMAT_INVALID,
  },
  {
    what: 'gateway attributes with a blank key',
    topic: 'v1/gateway/attributes',
    payload: { A: { ' ': 1 } },
    code: PAYLOAD_FORMAT_INVALID,
  },
  { what: 'unknown gateway topic', topic: 'v1/gateway/unknown', payload: {}, code: TOPIC_NAME_INVALID },
];

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))('bad input over %s', (_name, version) => {
  const platform = useSharedPlatform();
  let counter = 0;
  let token: string | undefined;
  afterEach(closeAll);

  async function api(): Promise<Api> {
    const p = platform();
    token ??= await p.login();
    return { p, token };
  }

  /**
   * Sends each bad publish and checks the answer: a v5 PUBACK reason code with the connection still
   * usable, or (3.1.1) a closed connection, after which the next case reconnects. Nothing is stored.
   */
  async function run(cases: Case[], gateway: boolean) {
    const a = await api();
    const device = await newDevice(a, `bad-v${version}-${++counter}`, { gateway });
    let client: MqttClient | undefined;
    for (const c of cases) {
      client ??= await connect(a.p.urls.mqtt, device.accessToken, version);
      const outcome = await expectRefused(client, version, c.topic, c.payload, c.code);
      if (version === 5) {
        expect(outcome.reasonString, c.what).toEqual(expect.any(String));
        // The connection stays up and the next good publish is accepted.
        await publishOk(client, 'v1/devices/me/telemetry', { after: 1 });
      } else {
        client = undefined;
      }
    }
    return { a, device };
  }

  it('refuses malformed device publishes: non-JSON, arrays for objects, wrong types, empty maps, unknown topics', async () => {
    const { a, device } = await run(DEVICE_CASES, false);
    const stored = await timeseries(a, device.id.id);
    expect(Object.keys(stored)).toEqual(version === 5 ? ['after'] : []);
  });

  it('refuses malformed gateway publishes and creates no device for them', async () => {
    const { a } = await run(GATEWAY_CASES, true);
    const res = await a.p.http('/api/tenant/devices?deviceName=A', { token: a.token });
    expect(res.status).toBe(404);
    const all = await a.p.http('/api/tenant/devices?page=0&pageSize=1000', { token: a.token });
    const names = ((await all.json()) as { data: { name: string }[] }).data.map((d) => d.name);
    expect(names.filter((n) => n.trim() === '' || n.length > 255)).toEqual([]);
  });

  it(`answers a packet over the maximum size with ${version === 5 ? 'DISCONNECT 0x95' : 'a closed connection'}`, async () => {
    const a = await api();
    const device = await newDevice(a, `big-v${version}-${++counter}`);
    const client = await connect(a.p.urls.mqtt, device.accessToken, version);
    const closed = closedByBroker(client);
    const big = { blob: 'x'.repeat(MAX_PACKET_BYTES) };
    const outcome = await publish(client, 'v1/devices/me/telemetry', big);
    expect(outcome.code).toBe('closed');
    expect(await closed).toBe(version === 5 ? 0x95 : undefined);
    // Nothing was stored, and a packet just under the limit goes through on a new connection.
    const again = await connect(a.p.urls.mqtt, device.accessToken, version);
    await publishOk(again, 'v1/devices/me/telemetry', { blob: 'y'.repeat(MAX_PACKET_BYTES - 200) });
    expect((await timeseries(a, device.id.id)).blob![0]!.value).toBe('y'.repeat(MAX_PACKET_BYTES - 200));
  });

  it('accepts gateway input ThingsBoard accepts: empty maps, entries that are not lists, empty value maps', async () => {
    const a = await api();
    const gateway = await newDevice(a, `lenient-v${version}-${++counter}`, { gateway: true });
    const client = await connect(a.p.urls.mqtt, gateway.accessToken, version);
    const name = `${gateway.name}-child`;
    await publishOk(client, 'v1/gateway/telemetry', {});
    await publishOk(client, 'v1/gateway/attributes', {});
    await publishOk(client, 'v1/gateway/claim', {});
    await publishOk(client, 'v1/gateway/telemetry', { [name]: [{}, 5, 'x', null] });
    await publishOk(client, 'v1/gateway/attributes', { [name]: {} });
    // The device was connected (implicitly) but got no data.
    const child = await deviceByName(a, name);
    expect(await timeseries(a, child.id.id)).toEqual({});
  });
});

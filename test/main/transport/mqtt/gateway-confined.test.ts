import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDevice, useSharedPlatform } from '../../api/api-kit.ts';
import {
  closeAll,
  connect,
  deviceByName,
  expectRefused,
  newDevice,
  publishOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt-kit.ts';

const NOT_AUTHORIZED = 0x87;

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  'a confined gateway over %s',
  (_n, version) => {
    const platform = useSharedPlatform();
    afterEach(closeAll);
    afterEach(() => vi.restoreAllMocks());

    async function setup() {
      const p = platform();
      const api: Api = { p, token: await p.login() };
      const tag = `v${version}-${Math.random().toString(36).slice(2, 8)}`;
      const confined = await createDevice(
        p,
        api.token,
        { name: `confined-${tag}`, additionalInfo: { gateway: true, gatewayConfined: true } },
        `tok-confined-${tag}`,
      );
      const open = await newDevice(api, `open-${tag}`, { gateway: true });
      const other = await createDevice(p, api.token, { name: `other-${tag}` });
      const assigned = await createDevice(p, api.token, {
        name: `assigned-${tag}`,
        additionalInfo: { lastConnectedGateway: confined.id.id },
      });
      return {
        api,
        tag,
        confined: { ...confined, accessToken: `tok-confined-${tag}` },
        open,
        other,
        assigned,
      };
    }

    it('writes to devices it created or that are assigned to it, and nowhere else (0x87 and a log line)', async () => {
      const { api, tag, confined, other, assigned } = await setup();
      const log = vi.spyOn(process.stderr, 'write');
      let client: MqttClient | undefined = await connect(api.p.urls.mqtt, confined.accessToken, version);
      await publishOk(client, 'v1/gateway/telemetry', { [`mine-${tag}`]: [{ t: 1 }] });
      await publishOk(client, 'v1/gateway/telemetry', {
        [`mine-${tag}`]: [{ t: 2 }],
        [assigned.name]: [{ t: 3 }],
      });
      await publishOk(client, 'v1/gateway/attributes', { [`mine-${tag}`]: { a: 1 } });

      for (const [topic, payload] of [
        ['v1/gateway/telemetry', { [other.name]: [{ t: 9 }] }],
        ['v1/gateway/attributes', { [other.name]: { a: 9 } }],
        ['v1/gateway/connect', { device: other.name }],
        ['v1/gateway/rpc', { device: other.name, id: 1, data: {} }],
      ] as const) {
        client ??= await connect(api.p.urls.mqtt, confined.accessToken, version);
        await expectRefused(client, version, topic, payload, NOT_AUTHORIZED);
        // 3.1.1 has no PUBACK reason codes: the refusal closed the connection
        if (version === 4) client = undefined;
      }
      expect(await timeseries(api, other.id.id)).toEqual({});
      expect((await timeseries(api, assigned.id.id)).t?.[0]?.value).toBe(3);
      expect((await timeseries(api, (await deviceByName(api, `mine-${tag}`)).id.id)).t?.[0]?.value).toBe(2);
      const lines = log.mock.calls.map(([chunk]) => String(chunk)).filter((l) => l.includes('confined'));
      expect(lines.some((l) => l.includes(other.name) && l.includes(confined.name))).toBe(true);
    });

    it('leaves a gateway without the option as ThingsBoard has it: any device of the tenant by name', async () => {
      const { api, open, other } = await setup();
      const client = await connect(api.p.urls.mqtt, open.accessToken, version);
      await publishOk(client, 'v1/gateway/telemetry', { [other.name]: [{ t: 7 }] });
      expect((await timeseries(api, other.id.id)).t?.[0]?.value).toBe(7);
    });
  },
);

import { afterEach, describe, expect, it } from 'vitest';
import { useSharedPlatform } from '../api/api-kit.ts';
import {
  attributes,
  closeAll,
  connect,
  deviceByName,
  Inbox,
  newDevice,
  publishOk,
  subscribeOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt/mqtt-kit.ts';

/**
 * The sequences ThingsBoard's own clients send on connect, as read from their sources:
 * thingsboard-python-client-sdk tb_device_mqtt.py / tb_gateway_mqtt.py (_on_connect subscriptions, then
 * the service loop's getSessionLimits RPC, answered before anything is forwarded) and
 * thingsboard-gateway tb_client.py / tb_gateway_service.py (subscribe_to_required_topics, shared
 * attribute request, gateway connect, telemetry, attributes).
 */
const UNLIMITED = { messages: null, telemetryMessages: null, telemetryDataPoints: null };

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  "ThingsBoard's clients over %s",
  (_n, version) => {
    const platform = useSharedPlatform();
    let counter = 0;
    let token: string | undefined;
    afterEach(closeAll);

    async function api(): Promise<Api> {
      const p = platform();
      token ??= await p.login();
      return { p, token };
    }

    /** TBDeviceMqttClient._on_connect: the four device subscriptions, then getSessionLimits (id 1). */
    async function sdkConnect(accessToken: string) {
      const a = await api();
      // The SDK leaves the client id empty (paho's client_id="").
      const client = await connect(a.p.urls.mqtt, accessToken, version, { clientId: '', clean: true });
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/devices/me/attributes');
      await subscribeOk(client, 'v1/devices/me/attributes/response/+');
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      await subscribeOk(client, 'v1/devices/me/rpc/response/+');
      await publishOk(client, 'v1/devices/me/rpc/request/1', {
        method: 'getSessionLimits',
        params: { timeout: 5000 },
      });
      const answer = await inbox.take('v1/devices/me/rpc/response/1');
      return { client, inbox, limits: answer.json as Record<string, unknown> };
    }

    it('the Python SDK device: getSessionLimits is answered by the transport, then telemetry is stored', async () => {
      const a = await api();
      const device = await newDevice(a, `sdk-dev-v${version}-${++counter}`);
      const { client, limits } = await sdkConnect(device.accessToken);
      expect(limits).toEqual({ maxPayloadSize: 65536, maxInflightMessages: 100, rateLimits: UNLIMITED });
      await publishOk(client, 'v1/devices/me/telemetry', { temperature: 22.5 });
      await publishOk(client, 'v1/devices/me/attributes', { firmware: '1.2' });
      expect((await timeseries(a, device.id.id)).temperature![0]!.value).toBe(22.5);
      expect(await attributes(a, device.id.id, 'CLIENT_SCOPE')).toEqual({ firmware: '1.2' });
    });

    it('the Python SDK gateway: its getSessionLimits also carries gatewayRateLimits; devices behind it are stored', async () => {
      const a = await api();
      const gw = await newDevice(a, `sdk-gw-v${version}-${++counter}`, { gateway: true });
      const { client, limits } = await sdkConnect(gw.accessToken);
      expect(limits).toEqual({
        maxPayloadSize: 65536,
        maxInflightMessages: 100,
        rateLimits: UNLIMITED,
        gatewayRateLimits: UNLIMITED,
      });
      // TBGatewayMqttClient._on_connect adds the gateway subscriptions.
      await subscribeOk(client, 'v1/gateway/attributes');
      await subscribeOk(client, 'v1/gateway/attributes/response');
      await subscribeOk(client, 'v1/gateway/rpc');
      const name = `sdk-gw-child-v${version}-${counter}`;
      await publishOk(client, 'v1/gateway/connect', { device: name, type: 'default' });
      await publishOk(client, 'v1/gateway/telemetry', { [name]: [{ ts: Date.now(), values: { level: 3 } }] });
      const child = await deviceByName(a, name);
      expect((await timeseries(a, child.id.id)).level![0]!.value).toBe(3);
    });

    it("the IoT Gateway's connect sequence (tb_client.py, tb_gateway_service.py) stores devices, telemetry and attributes", async () => {
      const a = await api();
      const gw = await newDevice(a, `iotgw-v${version}-${++counter}`, { gateway: true });
      const { client, inbox, limits } = await sdkConnect(gw.accessToken);
      expect(limits).toHaveProperty('gatewayRateLimits');
      await subscribeOk(client, 'v1/gateway/attributes');
      await subscribeOk(client, 'v1/gateway/attributes/response');
      await subscribeOk(client, 'v1/gateway/rpc');
      // _check_shared_attributes: request_attributes(shared_keys=...) on the gateway's own device topic.
      await publishOk(client, 'v1/devices/me/attributes/request/1', {
        sharedKeys: 'RemoteLoggingLevel,general_configuration',
      });
      expect((await inbox.take('v1/devices/me/attributes/response/1')).json).toEqual({});
      // The gateway's own attributes (connectors, version) and the first connector device.
      await publishOk(client, 'v1/devices/me/attributes', { Version: '3.8.0', active_connectors: ['REST'] });
      const name = `iotgw-child-v${version}-${counter}`;
      await publishOk(client, 'v1/gateway/connect', { device: name, type: 'thermometer' });
      await publishOk(client, 'v1/gateway/telemetry', {
        [name]: [{ ts: 1_700_000_000_000, values: { temperature: 20.5 } }],
      });
      await publishOk(client, 'v1/gateway/attributes', { [name]: { model: 'T-1000' } });

      const child = await deviceByName(a, name);
      expect(child.type).toBe('thermometer');
      expect((await timeseries(a, child.id.id)).temperature![0]).toEqual({
        ts: 1_700_000_000_000,
        value: 20.5,
      });
      expect(await attributes(a, child.id.id, 'CLIENT_SCOPE')).toEqual({ model: 'T-1000' });
      expect(await attributes(a, gw.id.id, 'CLIENT_SCOPE')).toEqual({
        Version: '3.8.0',
        active_connectors: ['REST'],
      });
    });

    it('getSessionLimits reports the limits set in the settings, in ThingsBoard\'s "N:S,N:S" form', async () => {
      const a = await api();
      const none = Object.fromEntries(
        [
          'transportTenantMsgRateLimit',
          'transportTenantTelemetryMsgRateLimit',
          'transportTenantTelemetryDataPointsRateLimit',
          'transportDeviceMsgRateLimit',
          'transportDeviceTelemetryMsgRateLimit',
          'transportDeviceTelemetryDataPointsRateLimit',
          'transportGatewayMsgRateLimit',
          'transportGatewayTelemetryMsgRateLimit',
          'transportGatewayTelemetryDataPointsRateLimit',
          'transportGatewayDeviceMsgRateLimit',
          'transportGatewayDeviceTelemetryMsgRateLimit',
          'transportGatewayDeviceTelemetryDataPointsRateLimit',
        ].map((k) => [k, '']),
      );
      const set = async (limits: Record<string, string>) => {
        const res = await a.p.http('/api/sandboard/transportLimits', {
          method: 'POST',
          token: a.token,
          json: { ...none, ...limits },
        });
        expect(res.status, await res.text()).toBe(200);
      };
      await set({
        transportDeviceMsgRateLimit: '100:1, 3000:60',
        transportDeviceTelemetryDataPointsRateLimit: '500:1',
        transportGatewayTelemetryMsgRateLimit: '200:1',
        transportGatewayDeviceMsgRateLimit: '50:1',
      });
      try {
        const device = await newDevice(a, `limits-dev-v${version}-${++counter}`);
        expect((await sdkConnect(device.accessToken)).limits).toEqual({
          maxPayloadSize: 65536,
          maxInflightMessages: 100,
          rateLimits: { messages: '100:1,3000:60', telemetryMessages: null, telemetryDataPoints: '500:1' },
        });
        const gw = await newDevice(a, `limits-gw-v${version}-${counter}`, { gateway: true });
        expect((await sdkConnect(gw.accessToken)).limits).toEqual({
          maxPayloadSize: 65536,
          maxInflightMessages: 100,
          rateLimits: { messages: '50:1', telemetryMessages: null, telemetryDataPoints: null },
          gatewayRateLimits: { messages: null, telemetryMessages: '200:1', telemetryDataPoints: null },
        });
      } finally {
        await set({});
      }
    });
  },
);

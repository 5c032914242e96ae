import { afterEach, describe, expect, it } from 'vitest';
import type {
  InspectedMessage,
  InspectorStatus,
  MqttSessionInfo,
  TopicStats,
} from '../../../../shared/schemas/mqtt-inspector.ts';
import { UNLIMITED } from '../../../../shared/schemas/transport-limits.ts';
import { connectLive } from '../../../helpers/live-ws.ts';
import { startTestPlatform } from '../../../helpers/platform.ts';
import { okJson, withLoginPair, type ApiPlatform } from '../../api/api-kit.ts';
import {
  closeAll,
  closedByBroker,
  connect,
  deviceByName,
  newDevice,
  publish,
  publishOk,
  saveShared,
  subscribeOk,
  Inbox,
  type Api,
} from './mqtt-kit.ts';

async function platformApi(overrides = {}): Promise<Api> {
  const p: ApiPlatform = withLoginPair(await startTestPlatform(overrides));
  return { p, token: await p.login() };
}

const sessions = ({ p, token }: Api) =>
  okJson<MqttSessionInfo[]>(p.http('/api/sandboard/mqtt/sessions', { token }));
const messages = ({ p, token }: Api, query: Record<string, string> = {}) =>
  okJson<{ messages: InspectedMessage[]; lastSeq: number }>(
    p.http(`/api/sandboard/mqtt/messages?${new URLSearchParams(query).toString()}`, { token }),
  );
const topics = ({ p, token }: Api) => okJson<TopicStats[]>(p.http('/api/sandboard/mqtt/topics', { token }));

afterEach(closeAll);

describe('MQTT sessions and traffic inspector', () => {
  it('lists a device session and its messages with the device, the answer and the rule engine ids', async () => {
    const api = await platformApi();
    const device = await newDevice(api, 'Inspected thermometer');
    const client = await connect(api.p.urls.mqtt, device.accessToken, 5, { clientId: 'thermo-1' });
    await subscribeOk(client, 'v1/devices/me/attributes');
    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 21.5 });
    const inbox = new Inbox(client);
    await saveShared(api, device.id.id, { setpoint: 19 });
    await inbox.take('v1/devices/me/attributes');

    const [session] = await sessions(api);
    expect(session).toMatchObject({
      clientId: 'thermo-1',
      device: { id: device.id.id, name: 'Inspected thermometer' },
      gateway: false,
      devices: [],
      protocolVersion: 5,
      subscriptions: [{ topic: 'v1/devices/me/attributes', qos: 1 }],
      messagesIn: 1,
      messagesOut: 1,
      lastReasonCode: 0,
      limits: { maxPayloadSize: expect.any(Number) },
    });
    expect(session!.address).toMatch(/^127\.0\.0\.1:\d+$/);

    const page = await messages(api);
    const [out, inbound] = page.messages;
    expect(inbound).toMatchObject({
      direction: 'in',
      clientId: 'thermo-1',
      device: { id: device.id.id, name: 'Inspected thermometer' },
      topic: 'v1/devices/me/telemetry',
      qos: 1,
      reasonCode: 0,
      payload: { format: 'json', json: { temperature: 21.5 }, size: 20 },
    });
    expect(inbound!.msgIds).toHaveLength(1);
    expect(out).toMatchObject({
      direction: 'out',
      topic: 'v1/devices/me/attributes',
      payload: { json: { setpoint: 19 } },
    });
    expect(JSON.stringify(page)).not.toContain(device.accessToken);
    const [topic] = (await topics(api)).filter((t) => t.topic === 'v1/devices/me/telemetry');
    expect(topic).toMatchObject({ count: 1, device: { name: 'Inspected thermometer' } });
    expect(topic!.lastPayload.json).toEqual({ temperature: 21.5 });

    const exported = await api.p.http('/api/sandboard/mqtt/messages/export', { token: api.token });
    expect(exported.headers.get('content-type')).toContain('application/x-ndjson');
    const lines = (await exported.text()).trim().split('\n');
    expect(lines.map((l) => (JSON.parse(l) as InspectedMessage).direction)).toEqual(['in', 'out']);

    // filters: topic pattern, direction, payload text
    expect((await messages(api, { topic: 'v1/devices/+/telemetry' })).messages).toHaveLength(1);
    expect((await messages(api, { topic: 'v1/#', direction: 'out' })).messages).toHaveLength(1);
    expect((await messages(api, { text: 'SETPOINT' })).messages.map((m) => m.direction)).toEqual(['out']);

    const closed = closedByBroker(client);
    await okJson(
      api.p.http(`/api/sandboard/mqtt/sessions/${session!.sessionId}`, {
        method: 'DELETE',
        token: api.token,
      }),
    );
    await closed;
    expect(await sessions(api)).toEqual([]);
  });

  it('names the devices behind a gateway on its session and its messages', async () => {
    const api = await platformApi();
    const gw = await newDevice(api, 'Inspected gateway', { gateway: true });
    const client = await connect(api.p.urls.mqtt, gw.accessToken, 4);
    await publishOk(client, 'v1/gateway/connect', { device: 'Behind A' });
    await publishOk(client, 'v1/gateway/telemetry', { 'Behind A': [{ t: 1 }], 'Behind B': [{ t: 2 }] });
    const a = await deviceByName(api, 'Behind A');
    const b = await deviceByName(api, 'Behind B');
    const [session] = await sessions(api);
    expect(session!.gateway).toBe(true);
    expect(session!.devices.map((d) => d.name).sort()).toEqual(['Behind A', 'Behind B']);
    const forB = await messages(api, { deviceId: b.id.id });
    expect(forB.messages).toHaveLength(1);
    expect(forB.messages[0]).toMatchObject({
      device: { name: 'Inspected gateway' },
      devices: [
        { id: a.id.id, name: 'Behind A' },
        { id: b.id.id, name: 'Behind B' },
      ],
      reasonCode: 0,
    });
    expect(forB.messages[0]!.msgIds).toHaveLength(2);
  });

  it('shows the reason code the client got: success, 0x87 not authorized, 0x97 when limited', async () => {
    const api = await platformApi();
    await newDevice(api, 'Not yours');
    const gw = await newDevice(api, 'Confined gateway', { gateway: true });
    await okJson(
      api.p.http('/api/device', {
        method: 'POST',
        token: api.token,
        json: { ...gw, additionalInfo: { gateway: true, gatewayConfined: true } },
      }),
    );
    const client = await connect(api.p.urls.mqtt, gw.accessToken, 5);
    const ok = await publish(client, 'v1/gateway/telemetry', { Mine: [{ t: 1 }] });
    const denied = await publish(client, 'v1/gateway/telemetry', { 'Not yours': [{ t: 1 }] });
    await okJson(
      api.p.http('/api/sandboard/transportLimits', {
        method: 'POST',
        token: api.token,
        json: { ...UNLIMITED, transportGatewayTelemetryMsgRateLimit: '1:3600' },
      }),
    );
    const withinLimit = await publish(client, 'v1/gateway/telemetry', { Mine: [{ t: 2 }] });
    const limited = await publish(client, 'v1/gateway/telemetry', { Mine: [{ t: 3 }] });
    const got = [ok.code, denied.code, withinLimit.code, limited.code];
    expect(got).toEqual([0, 0x87, 0, 0x97]);
    const shown = (await messages(api, { direction: 'in' })).messages.reverse().map((m) => m.reasonCode);
    expect(shown).toEqual(got);
    expect((await messages(api, { reasonCode: String(0x97) })).messages[0]!.reason).toContain('Rate limit');
  });

  it('keeps the ring within its byte budget under a flood, newest kept', async () => {
    const api = await platformApi();
    const status = await okJson<InspectorStatus>(
      api.p.http('/api/sandboard/mqtt/inspector', {
        method: 'POST',
        token: api.token,
        json: { enabled: true, budgetBytes: 65_536 },
      }),
    );
    expect(status.budgetBytes).toBe(65_536);
    const device = await newDevice(api, 'Flooder');
    const client = await connect(api.p.urls.mqtt, device.accessToken, 4);
    const filler = 'x'.repeat(400);
    await Promise.all(
      Array.from({ length: 600 }, (_, i) => publishOk(client, 'v1/devices/me/telemetry', { i, filler })),
    );
    const after = await okJson<InspectorStatus>(
      api.p.http('/api/sandboard/mqtt/inspector', { token: api.token }),
    );
    expect(after.bytes).toBeLessThanOrEqual(65_536);
    expect(after.recorded).toBe(600);
    expect(after.messages).toBeLessThan(600);
    expect(after.messages + after.evicted).toBe(600);
    const newest = (await messages(api, { limit: '1' })).messages[0]!;
    expect((newest.payload.json as { i: number }).i).toBeGreaterThanOrEqual(0);
    expect(newest.seq).toBe((await messages(api)).lastSeq);

    // off: nothing more is recorded
    await okJson(
      api.p.http('/api/sandboard/mqtt/inspector', {
        method: 'POST',
        token: api.token,
        json: { enabled: false, budgetBytes: 65_536 },
      }),
    );
    await publishOk(client, 'v1/devices/me/telemetry', { i: 601 });
    const off = await okJson<InspectorStatus>(
      api.p.http('/api/sandboard/mqtt/inspector', { token: api.token }),
    );
    expect(off.recorded).toBe(600);
  });

  it("a customer user sees only its own devices' sessions and traffic, live too", async () => {
    const api = await platformApi();
    const customerToken = await api.p.login('customer@thingsboard.org', 'customer');
    const customerId = (
      await okJson<{ customerId: { id: string } }>(api.p.http('/api/auth/user', { token: customerToken }))
    ).customerId.id;
    const theirs = await newDevice(api, 'Customer device');
    await okJson(
      api.p.http(`/api/customer/${customerId}/device/${theirs.id.id}`, { method: 'POST', token: api.token }),
    );
    const tenants = await newDevice(api, 'Tenant device');
    const customer: Api = { p: api.p, token: customerToken };
    const live = await connectLive(api.p, customerToken);
    live.send({ type: 'mqttWatch', filter: {} });
    const tenantClient = await connect(api.p.urls.mqtt, tenants.accessToken, 4);
    const customerClient = await connect(api.p.urls.mqtt, theirs.accessToken, 4);
    await publishOk(tenantClient, 'v1/devices/me/telemetry', { secret: 1 });
    await publishOk(customerClient, 'v1/devices/me/telemetry', { mine: 1 });

    const streamed = await live.next('mqttMessages');
    expect(streamed.messages.map((m) => m.device.name)).toEqual(['Customer device']);
    expect((await sessions(customer)).map((s) => s.device.name)).toEqual(['Customer device']);
    expect((await messages(customer)).messages.map((m) => m.device.name)).toEqual(['Customer device']);
    expect((await topics(customer)).map((t) => t.device.name)).toEqual(['Customer device']);
    expect((await sessions(api)).length).toBe(2);
    const session = (await sessions(api)).find((s) => s.device.name === 'Tenant device')!;
    const denied = await api.p.http(`/api/sandboard/mqtt/sessions/${session.sessionId}`, {
      method: 'DELETE',
      token: customerToken,
    });
    expect(denied.status).toBe(404);
    const clear = await api.p.http('/api/sandboard/mqtt/messages', {
      method: 'DELETE',
      token: customerToken,
    });
    expect(clear.status).toBe(403);
    live.ws.close();
  });
});

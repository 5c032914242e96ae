import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { TbWsClient, openTbWs, tbWsUrl, type TbWsMessage } from '../../helpers/tb-ws-client.ts';
import { CUSTOMER, createDevice, okJson, okEmpty, useSharedPlatform, type ApiPlatform } from './api-kit.ts';

/** A device with an access token, and an MQTT client connected as it (QoS 1 publishes await the PUBACK). */
async function mqttDevice(p: ApiPlatform, token: string, name: string, type: string) {
  const accessToken = `tok-${name}`;
  const device = await createDevice(p, token, { name, type }, accessToken);
  const client = await mqtt.connectAsync(p.urls.mqtt, { username: accessToken, reconnectPeriod: 0 });
  const publish = (values: Record<string, unknown>) =>
    client.publishAsync('v1/devices/me/telemetry', JSON.stringify(values), { qos: 1 });
  return { device, id: device.id.id, client, publish };
}

const deviceTypeQuery = (type: string, latest: { type: string; key: string }[] = []) => ({
  entityFilter: { type: 'deviceType', deviceTypes: [type], deviceNameFilter: '' },
  pageLink: {
    pageSize: 10,
    page: 0,
    sortOrder: { key: { type: 'ENTITY_FIELD', key: 'name' }, direction: 'ASC' },
  },
  entityFields: [{ type: 'ENTITY_FIELD', key: 'name' }],
  latestValues: latest,
});

type Page = { data: { entityId: { id: string }; latest: Record<string, Record<string, unknown>> }[] };
type Updates = { entityId: { id: string }; latest: unknown; timeseries: Record<string, unknown> | null }[];

describe("ThingsBoard's WebSocket API /api/ws", () => {
  const platform = useSharedPlatform();

  it("replays the UI's ENTITY_DATA sequence: a data page, then latest and time series updates after MQTT publishes", async () => {
    const p = platform();
    const token = await p.login();
    const a = await mqttDevice(p, token, 'ws-ed-a', 'ws-ed');
    const b = await mqttDevice(p, token, 'ws-ed-b', 'ws-ed');
    await a.publish({ temperature: 20 });
    // the UI's first message: authCmd and the data command with its query and latestCmd
    const ws = await openTbWs(p, { token }, [
      {
        type: 'ENTITY_DATA',
        cmdId: 1,
        query: deviceTypeQuery('ws-ed'),
        latestCmd: { keys: [{ type: 'TIME_SERIES', key: 'temperature' }] },
      },
    ]);
    const first = await ws.forCmd(1);
    expect(first).toMatchObject({ cmdId: 1, errorCode: 0, cmdUpdateType: 'ENTITY_DATA', update: null });
    const page = first.data as Page & { totalElements: number };
    expect(page.totalElements).toBe(2);
    expect(page.data.map((e) => e.latest.ENTITY_FIELD!.name)).toEqual([
      { ts: expect.any(Number), value: 'ws-ed-a' },
      { ts: expect.any(Number), value: 'ws-ed-b' },
    ]);
    expect(page.data[0]!.latest.TIME_SERIES!.temperature).toMatchObject({ value: '20' });

    await b.publish({ temperature: 23.5, humidity: 40 });
    const latest = await ws.forCmd(1);
    expect(latest.data).toBeNull();
    expect(latest.update).toEqual([
      {
        entityId: { entityType: 'DEVICE', id: b.id },
        latest: { TIME_SERIES: { temperature: { ts: expect.any(Number), value: '23.5' } } },
        timeseries: null,
      },
    ]);

    // the subscription command the UI sends next for a chart: same cmdId, no query, a tsCmd
    const now = Date.now();
    ws.send({
      cmds: [
        {
          type: 'ENTITY_DATA',
          cmdId: 1,
          tsCmd: { keys: ['temperature'], startTs: now - 60_000, timeWindow: 120_000, limit: 100 },
        },
      ],
    });
    const history = await ws.forCmd(1);
    const byId = new Map((history.update as Updates).map((e) => [e.entityId.id, e]));
    expect(byId.get(a.id)!.timeseries!.temperature).toEqual([{ ts: expect.any(Number), value: '20' }]);
    await a.publish({ temperature: 21 });
    const point = await ws.forCmd(1);
    expect(point.update).toEqual([
      {
        entityId: { entityType: 'DEVICE', id: a.id },
        latest: null,
        timeseries: { temperature: [{ ts: expect.any(Number), value: '21' }] },
      },
    ]);

    // unsubscribed, cmd 1 gets nothing more; cmd 2 on the same device shows a publish went out
    ws.send({ cmds: [{ type: 'ENTITY_DATA_UNSUBSCRIBE', cmdId: 1 }] });
    ws.send({
      cmds: [
        {
          type: 'ENTITY_DATA',
          cmdId: 2,
          query: deviceTypeQuery('ws-ed'),
          latestCmd: { keys: [{ type: 'TIME_SERIES', key: 'temperature' }] },
        },
      ],
    });
    await ws.forCmd(2);
    await a.publish({ temperature: 22 });
    await ws.forCmd(2, (m) => m.update !== null);
    expect(ws.pending().filter((m) => m.cmdId === 1)).toEqual([]);

    // a latestCmd without a query follows other keys of the same entities and answers their values
    ws.send({
      cmds: [
        { type: 'ENTITY_DATA', cmdId: 2, latestCmd: { keys: [{ type: 'TIME_SERIES', key: 'humidity' }] } },
      ],
    });
    const humidity = (await ws.forCmd(2)).update as Updates;
    expect(humidity.find((e) => e.entityId.id === b.id)!.latest).toEqual({
      TIME_SERIES: { humidity: { ts: expect.any(Number), value: '40' } },
    });
    ws.ws.close();
    await Promise.all([a.client.endAsync(), b.client.endAsync()]);
  });

  it('runs a dynamic page link again when a device it would find is created', async () => {
    const p = platform();
    const token = await p.login();
    const query = deviceTypeQuery('ws-dyn');
    const ws = await openTbWs(p, { token }, [
      { type: 'ENTITY_DATA', cmdId: 1, query: { ...query, pageLink: { ...query.pageLink, dynamic: true } } },
    ]);
    expect(await ws.forCmd(1)).toMatchObject({ data: { totalElements: 0, data: [] } });
    const created = await createDevice(p, token, { name: 'ws-dyn-1', type: 'ws-dyn' });
    const again = (await ws.forCmd(1)).data as Page;
    expect(again.data.map((e) => e.entityId.id)).toEqual([created.id.id]);
    ws.ws.close();
  });

  it('serves ATTRIBUTES, TIMESERIES and TIMESERIES_HISTORY in TelemetrySubscriptionUpdate shapes', async () => {
    const p = platform();
    const token = await p.login();
    const d = await mqttDevice(p, token, 'ws-v1', 'ws-v1');
    await d.publish({ temperature: 19, status: 'ok' });
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${d.id}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { target: 5 },
      }),
    );
    const ws = await openTbWs(p, { token }, [
      { type: 'TIMESERIES', cmdId: 3, entityType: 'DEVICE', entityId: d.id, keys: 'temperature' },
      { type: 'ATTRIBUTES', cmdId: 4, entityType: 'DEVICE', entityId: d.id, scope: 'SHARED_SCOPE', keys: '' },
      {
        type: 'TIMESERIES_HISTORY',
        cmdId: 5,
        entityType: 'DEVICE',
        entityId: d.id,
        keys: 'status',
        startTs: 0,
        endTs: Date.now() + 1000,
      },
    ]);
    const ts = await ws.forCmd(3);
    expect(ts).toEqual({
      subscriptionId: 3,
      errorCode: 0,
      errorMsg: null,
      data: { temperature: [[expect.any(Number), '19']] },
      latestValues: { temperature: expect.any(Number) },
    });
    expect((await ws.forCmd(4)).data).toEqual({ target: [[expect.any(Number), '5']] });
    expect((await ws.forCmd(5)).data).toEqual({ status: [[expect.any(Number), 'ok']] });

    await d.publish({ temperature: 30, other: 1 });
    expect((await ws.forCmd(3)).data).toEqual({ temperature: [[expect.any(Number), '30']] });
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${d.id}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { target: 7 },
      }),
    );
    expect((await ws.forCmd(4)).data).toEqual({ target: [[expect.any(Number), '7']] });
    ws.ws.close();
    await d.client.endAsync();
  });

  it('serves the deprecated /api/ws/plugins/telemetry with tsSubCmds, attrSubCmds and historyCmds', async () => {
    const p = platform();
    const token = await p.login();
    const d = await mqttDevice(p, token, 'ws-legacy', 'ws-legacy');
    await d.publish({ speed: 3 });
    const ws = new TbWsClient(tbWsUrl(p, '/api/ws/plugins/telemetry', `?token=${token}`));
    await ws.opened();
    ws.send({
      tsSubCmds: [{ entityType: 'DEVICE', entityId: d.id, scope: 'LATEST_TELEMETRY', cmdId: 10 }],
      attrSubCmds: [{ entityType: 'DEVICE', entityId: d.id, cmdId: 11 }],
      entityDataCmds: [
        {
          cmdId: 13,
          query: deviceTypeQuery('ws-legacy'),
          latestCmd: { keys: [{ type: 'TIME_SERIES', key: 'speed' }] },
        },
      ],
      historyCmds: [
        {
          entityType: 'DEVICE',
          entityId: d.id,
          keys: 'speed',
          startTs: 0,
          endTs: Date.now() + 1000,
          cmdId: 12,
        },
      ],
    });
    expect((await ws.forCmd(10)).data).toEqual({ speed: [[expect.any(Number), '3']] });
    expect(await ws.forCmd(11)).toMatchObject({ subscriptionId: 11, errorCode: 0 });
    expect((await ws.forCmd(12)).data).toEqual({ speed: [[expect.any(Number), '3']] });
    const page = (await ws.forCmd(13)).data as Page;
    expect(page.data[0]!.latest.TIME_SERIES!.speed).toMatchObject({ value: '3' });
    await d.publish({ speed: 4 });
    expect((await ws.forCmd(10)).data).toEqual({ speed: [[expect.any(Number), '4']] });
    expect(((await ws.forCmd(13)).update as Updates)[0]!.latest).toEqual({
      TIME_SERIES: { speed: { ts: expect.any(Number), value: '4' } },
    });

    // without ?token= the legacy endpoint has no way to authenticate
    const anonymous = new TbWsClient(tbWsUrl(p, '/api/ws/plugins/telemetry'));
    await anonymous.opened();
    anonymous.send({ tsSubCmds: [{ entityType: 'DEVICE', entityId: d.id, cmdId: 1 }] });
    expect(await anonymous.closed).toEqual({ code: 1008, reason: 'Auth cmd is missing' });
    ws.ws.close();
    await d.client.endAsync();
  });

  it('authenticates by authCmd, by ?token= and by API key, and refuses the rest as ThingsBoard does', async () => {
    const p = platform();
    const token = await p.login();
    const d = await createDevice(p, token, { name: 'ws-auth', type: 'ws-auth' });
    const key = await okJson<{ value: string }>(
      p.http('/api/apiKey', {
        method: 'POST',
        token,
        json: { description: 'ws', expirationTime: 0, enabled: true },
      }),
    );
    // a session that never authenticates is closed after auth_timeout_ms (10 s)
    const silent = new TbWsClient(tbWsUrl(p));
    await silent.opened();
    const count = {
      type: 'ENTITY_COUNT',
      cmdId: 1,
      query: { entityFilter: { type: 'deviceType', deviceTypes: ['ws-auth'] } },
    };
    const expected = { cmdId: 1, errorCode: 0, errorMsg: null, cmdUpdateType: 'COUNT_DATA', count: 1 };

    const byApiKey = await openTbWs(p, { apiKey: key.value }, [count]);
    expect(await byApiKey.forCmd(1)).toEqual(expected);
    const byUrl = new TbWsClient(tbWsUrl(p, '/api/ws', `?token=${token}`));
    await byUrl.opened();
    byUrl.send({ cmds: [count] });
    expect(await byUrl.forCmd(1)).toEqual(expected);

    const badToken = await openTbWs(p, { token: 'not-a-jwt' }, [count]);
    expect((await badToken.closed).code).toBe(1007);
    const noAuth = new TbWsClient(tbWsUrl(p));
    await noAuth.opened();
    noAuth.send({ cmds: [count] });
    expect(await noAuth.closed).toEqual({ code: 1008, reason: 'Auth cmd is missing' });
    const badUrl = new TbWsClient(tbWsUrl(p, '/api/ws', '?token=nope'));
    expect((await badUrl.closed).code).toBe(1011);
    const notJson = new TbWsClient(tbWsUrl(p));
    await notJson.opened();
    notJson.send('{oops');
    expect((await notJson.closed).code).toBe(1007);
    const binary = await openTbWs(p, { token });
    binary.ws.send(new Uint8Array([1, 2, 3]));
    expect((await binary.closed).code).toBe(1003);

    // a customer user sees its own devices only
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    const asCustomer = await openTbWs(p, { token: customer }, [
      count,
      { type: 'TIMESERIES', cmdId: 2, entityType: 'DEVICE', entityId: d.id.id, keys: 'x' },
    ]);
    expect(await asCustomer.forCmd(1)).toMatchObject({ count: 0 });
    expect(await asCustomer.forCmd(2)).toMatchObject({ subscriptionId: 2, errorCode: 3, data: null });
    for (const c of [byApiKey, byUrl, asCustomer]) c.ws.close();
    expect((await silent.closed).code).toBe(1008);
  });

  it('answers bad JSON, unknown types and over-limit subscriptions with error updates, other subscriptions live on', async () => {
    const p = platform();
    const token = await p.login();
    const d = await mqttDevice(p, token, 'ws-bad', 'ws-bad');
    const ws = await openTbWs(p, { token }, [
      { type: 'TIMESERIES', cmdId: 1, entityType: 'DEVICE', entityId: d.id, keys: 'v' },
    ]);
    await ws.forCmd(1);
    ws.send('{not json');
    expect(await ws.forCmd(1, (m) => m.errorCode !== 0)).toMatchObject({
      subscriptionId: 1,
      errorCode: 2,
      errorMsg: expect.stringMatching(/^Failed to parse the payload/),
    });
    ws.send({ cmds: [{ type: 'NO_SUCH_CMD', cmdId: 7 }] });
    expect((await ws.forCmd(1, (m) => m.errorCode !== 0)).errorMsg).toMatch(
      /unknown command type "NO_SUCH_CMD"/,
    );
    ws.send({ cmds: [{ type: 'ENTITY_DATA', cmdId: 8 }] });
    expect(await ws.forCmd(8)).toMatchObject({ errorCode: 2, errorMsg: 'Query is empty!' });
    ws.send({ cmds: [{ type: 'TIMESERIES', cmdId: -1, entityId: d.id, keys: 'v' }] });
    expect(await ws.forCmd(-1)).toMatchObject({ errorCode: 2, errorMsg: 'Cmd id is negative value!' });

    // 1,000 subscriptions a session: the next one is refused, the first still updates
    for (let batch = 0; batch < 10; batch++) {
      const cmds = Array.from({ length: 100 }, (_, i) => ({
        type: 'ATTRIBUTES',
        cmdId: 100 + batch * 100 + i,
        entityType: 'DEVICE',
        entityId: d.id,
        keys: 'a',
      }));
      ws.send({ cmds });
    }
    const refused = await ws.next((m) => m.errorCode === 2 && /Max subscriptions/.test(String(m.errorMsg)));
    expect(refused.subscriptionId).toBe(1099);
    await d.publish({ v: 1 });
    expect((await ws.forCmd(1, (m) => m.errorCode === 0)).data).toEqual({ v: [[expect.any(Number), '1']] });

    // a message above 32 KiB closes the session with 1009
    ws.send({ cmds: [], pad: 'x'.repeat(40_000) });
    expect((await ws.closed).code).toBe(1009);
    await d.client.endAsync();
  });

  it('pushes ALARM_DATA, ALARM_COUNT and ALARM_STATUS when an alarm is raised and cleared', async () => {
    const p = platform();
    const token = await p.login();
    const d = await createDevice(p, token, { name: 'ws-alarm', type: 'ws-alarm' });
    const entityFilter = { type: 'singleEntity', singleEntity: { entityType: 'DEVICE', id: d.id.id } };
    const ws = await openTbWs(p, { token }, [
      {
        type: 'ALARM_DATA',
        cmdId: 1,
        query: {
          entityFilter,
          pageLink: {
            pageSize: 10,
            page: 0,
            statusList: ['ACTIVE'],
            sortOrder: { key: { type: 'ALARM_FIELD', key: 'createdTime' }, direction: 'DESC' },
          },
          alarmFields: [{ type: 'ALARM_FIELD', key: 'type' }],
        },
      },
      { type: 'ALARM_COUNT', cmdId: 2, query: { entityFilter, statusList: ['ACTIVE'] } },
      { type: 'ALARM_STATUS', cmdId: 3, originatorId: { entityType: 'DEVICE', id: d.id.id } },
    ]);
    expect(await ws.forCmd(1)).toMatchObject({ cmdUpdateType: 'ALARM_DATA', data: { totalElements: 0 } });
    expect(await ws.forCmd(2)).toMatchObject({ cmdUpdateType: 'ALARM_COUNT_DATA', count: 0 });
    expect(await ws.forCmd(3)).toMatchObject({ cmdUpdateType: 'ALARM_STATUS', active: false });
    const alarm = await okJson<{ id: { id: string } }>(
      p.http('/api/alarm', {
        method: 'POST',
        token,
        json: { type: 'Overheat', originator: { entityType: 'DEVICE', id: d.id.id }, severity: 'MAJOR' },
      }),
    );
    const data = (await ws.forCmd(1)).data as { data: TbWsMessage[] };
    expect(data.data).toEqual([expect.objectContaining({ type: 'Overheat', severity: 'MAJOR' })]);
    expect(await ws.forCmd(2)).toMatchObject({ count: 1 });
    expect(await ws.forCmd(3)).toMatchObject({ active: true });
    await okJson(p.http(`/api/alarm/${alarm.id.id}/clear`, { method: 'POST', token }));
    expect(await ws.forCmd(2)).toMatchObject({ count: 0 });
    expect(await ws.forCmd(3)).toMatchObject({ active: false });
    ws.ws.close();
  });
});

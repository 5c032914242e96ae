/**
 * Recording over the real platform: MQTT devices (3.1.1 and 5) and the device HTTP API, a device profile
 * alarm, a server-side RPC answered by the device, a shared attribute; the file read back with
 * parseRecording. Then the filter, the size bound, and listing, renaming, stopping and deleting.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseRecording, type RecordingRecord, type RecordOf } from '../../../shared/schemas/recording.ts';
import type { RecordingInfo, RecordingList } from '../../../shared/schemas/recordings-api.ts';
import { alarm, numeric, profileWithAlarms, rule } from '../../fixtures/alarm-rules.ts';
import {
  assignDevice,
  chainMetadata,
  createEdge,
  rootChainId,
  withPushToEdge,
} from '../../fixtures/edge-test-kit.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { expectTbError, okEmpty, okJson } from '../api/api-kit.ts';
import { closeAll, connect, publish, publishOk, subscribeOk } from '../transport/mqtt/mqtt-kit.ts';

const HOT = alarm(
  'High Temperature',
  { CRITICAL: rule([numeric('temperature', 'GREATER', 30)]) },
  rule([numeric('temperature', 'LESS', 25)]),
);

interface Setup {
  p: TestPlatform;
  token: string;
  thermostat: { id: string; token: string };
  other: { id: string; token: string };
}

async function setup(overrides: Parameters<typeof startTestPlatform>[0] = {}): Promise<Setup> {
  const p = await startTestPlatform(overrides);
  const token = await p.login();
  const profile = await okJson<{ id: { id: string } }>(
    p.http('/api/deviceProfile', { method: 'POST', token, json: profileWithAlarms('Thermostats', [HOT]) }),
  );
  const device = async (name: string, profileId?: string) => {
    const accessToken = `rec-${name.replace(/\W/g, '')}`;
    const d = await okJson<{ id: { id: string } }>(
      p.http(`/api/device?accessToken=${accessToken}`, {
        method: 'POST',
        token,
        json: {
          name,
          ...(profileId ? { deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profileId } } : {}),
        },
      }),
    );
    return { id: d.id.id, token: accessToken };
  };
  return {
    p,
    token,
    thermostat: await device('Thermostat 1', profile.id.id),
    other: await device('Meter 1'),
  };
}

const start = (s: Setup, body: unknown) =>
  okJson<RecordingInfo>(
    s.p.http('/api/sandboard/recordings', { method: 'POST', token: s.token, json: body }),
  );
const stop = (s: Setup, id: string) =>
  okJson<RecordingInfo>(s.p.http(`/api/sandboard/recordings/${id}/stop`, { method: 'POST', token: s.token }));
const list = (s: Setup) => okJson<RecordingList>(s.p.http('/api/sandboard/recordings', { token: s.token }));

async function fileOf(s: Setup, id: string) {
  const res = await s.p.http(`/api/sandboard/recordings/${id}/file`, { token: s.token });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
  expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.ndjson"$/);
  const text = await res.text();
  const { recording, issues } = parseRecording(text);
  expect(issues).toEqual([]);
  return recording!;
}

const ofKind = <K extends RecordingRecord['kind']>(records: RecordingRecord[], kind: K) =>
  records.filter((r): r is RecordOf<K> & RecordingRecord => r.kind === kind);

describe('recordings', () => {
  afterEach(closeAll);

  it('records MQTT and HTTP traffic with its answers, an RPC, an attribute update, an alarm raised and cleared, and the final latest values', async () => {
    const s = await setup();
    const rec = await start(s, {
      durationMs: 60_000,
      filter: { deviceTypes: ['Thermostats'] },
      name: 'Lab run',
    });
    expect(rec).toMatchObject({ name: 'Lab run', state: 'recording', truncated: false });

    const t1 = await connect(s.p.urls.mqtt, s.thermostat.token, 5);
    const meter = await connect(s.p.urls.mqtt, s.other.token, 4);
    // the device answers server-side RPC
    await subscribeOk(t1, 'v1/devices/me/rpc/request/+', 'v1/devices/me/attributes');
    t1.on('message', (topic, payload) => {
      const m = /rpc\/request\/(\d+)$/.exec(topic);
      if (m)
        t1.publish(
          `v1/devices/me/rpc/response/${m[1]}`,
          JSON.stringify({ echoed: JSON.parse(String(payload)) }),
          {
            qos: 1,
          },
        );
    });
    await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 22 });
    await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 33 });
    expect(await publish(t1, 'v1/devices/me/nowhere', { a: 1 })).toMatchObject({ code: 0x90 });
    await publishOk(meter, 'v1/devices/me/telemetry', { power: 5 });
    const answer = await okJson(
      s.p.http(`/api/rpc/twoway/${s.thermostat.id}`, {
        method: 'POST',
        token: s.token,
        json: { method: 'setTarget', params: { target: 21 } },
      }),
    );
    expect(answer).toEqual({ echoed: { method: 'setTarget', params: { target: 21 } } });
    await okEmpty(
      s.p.http(`/api/plugins/telemetry/DEVICE/${s.thermostat.id}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token: s.token,
        json: { mode: 'eco' },
      }),
    );
    const http = await fetch(`${s.p.urls.http}/api/v1/${s.thermostat.token}/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ temperature: 20, humidity: 40 }),
    });
    expect(http.status).toBe(200);

    const live = await okJson<RecordingInfo>(
      s.p.http(`/api/sandboard/recordings/${rec.id}`, { token: s.token }),
    );
    expect(live.state).toBe('recording');
    expect(live.records).toBeGreaterThan(0);
    const stopped = await stop(s, rec.id);
    expect(stopped).toMatchObject({ state: 'stopped', truncated: false, reason: 'stopped early' });

    const { header, records, end } = await fileOf(s, rec.id);
    expect(header).toMatchObject({ id: rec.id, name: 'Lab run', filter: { deviceTypes: ['Thermostats'] } });
    expect(end).toMatchObject({ records: records.length, truncated: false, reason: 'stopped early' });
    expect(stopped.records).toBe(records.length);
    // only the thermostat: the meter's profile is not in the filter
    expect(new Set(records.map((r) => ('device' in r ? r.device : 'name' in r ? r.name : '')))).toEqual(
      new Set(['Thermostat 1']),
    );
    expect(ofKind(records, 'device')).toEqual([
      { kind: 'device', t: expect.any(Number), name: 'Thermostat 1', type: 'Thermostats' },
    ]);
    expect(ofKind(records, 'mqtt.connect')).toMatchObject([
      { device: 'Thermostat 1', protocolVersion: 5, expect: { reasonCode: 0 } },
    ]);
    const publishes = ofKind(records, 'mqtt.publish');
    expect(
      publishes.filter((r) => r.direction === 'in').map((r) => [r.topic, r.payload, r.expect?.reasonCode]),
    ).toEqual([
      ['v1/devices/me/telemetry', '{"temperature":22}', 0],
      ['v1/devices/me/telemetry', '{"temperature":33}', 0],
      ['v1/devices/me/nowhere', '{"a":1}', 0x90],
      ['v1/devices/me/rpc/response/1', '{"echoed":{"method":"setTarget","params":{"target":21}}}', 0],
    ]);
    expect(publishes.find((r) => r.topic === 'v1/devices/me/nowhere')?.expect?.reason).toMatch(
      /Unknown topic/,
    );
    expect(publishes.filter((r) => r.direction === 'out').map((r) => r.topic)).toEqual([
      'v1/devices/me/rpc/request/1',
      'v1/devices/me/attributes',
    ]);
    expect(ofKind(records, 'rpc.request')).toMatchObject([
      { device: 'Thermostat 1', id: 1, origin: 'server', method: 'setTarget', params: { target: 21 } },
    ]);
    expect(ofKind(records, 'rpc.response')).toMatchObject([
      { id: 1, response: { echoed: { method: 'setTarget', params: { target: 21 } } } },
    ]);
    expect(ofKind(records, 'expect.rpc')).toMatchObject([
      { id: 1, method: 'setTarget', status: 'SUCCESSFUL', response: { echoed: { method: 'setTarget' } } },
    ]);
    expect(ofKind(records, 'attributes.update')).toMatchObject([
      { device: 'Thermostat 1', scope: 'SHARED_SCOPE', values: { mode: 'eco' } },
    ]);
    expect(ofKind(records, 'http.request')).toMatchObject([
      {
        device: 'Thermostat 1',
        method: 'POST',
        path: '/api/v1/{token}/telemetry',
        body: '{"temperature":20,"humidity":40}',
        expect: { status: 200 },
      },
    ]);
    expect(JSON.stringify(records)).not.toContain(s.thermostat.token);
    expect(ofKind(records, 'expect.alarm').map((r) => [r.event, r.type, r.severity, r.status])).toEqual([
      ['raised', 'High Temperature', 'CRITICAL', 'ACTIVE_UNACK'],
      ['cleared', 'High Temperature', 'CRITICAL', 'CLEARED_UNACK'],
    ]);
    // what a publish caused comes after it
    const index = (r: RecordingRecord) => records.indexOf(r);
    const hot = publishes.find((r) => r.payload === '{"temperature":33}')!;
    expect(index(ofKind(records, 'expect.alarm')[0]!)).toBeGreaterThan(index(hot));
    expect(index(ofKind(records, 'expect.alarm')[1]!)).toBeGreaterThan(
      index(ofKind(records, 'http.request')[0]!),
    );
    expect(ofKind(records, 'expect.latest')).toMatchObject([
      { device: 'Thermostat 1', values: { temperature: 20, humidity: 40 } },
    ]);
  });

  it("records a gateway's traffic as its own and names the devices it connects with via; a topic filter keeps only its topics", async () => {
    const s = await setup();
    const gateway = await okJson<{ id: { id: string } }>(
      s.p.http('/api/device?accessToken=rec-gateway', {
        method: 'POST',
        token: s.token,
        json: { name: 'Gateway 1', additionalInfo: { gateway: true } },
      }),
    );
    expect(gateway.id.id).toBeTruthy();
    const all = await start(s, { durationMs: 60_000, filter: { devices: ['Gateway 1'] } });
    const telemetryOnly = await start(s, {
      durationMs: 60_000,
      filter: { topics: ['v1/gateway/telemetry'] },
    });
    const gw = await connect(s.p.urls.mqtt, 'rec-gateway', 5);
    await publishOk(gw, 'v1/gateway/connect', { device: 'Sub A', type: 'sensor' });
    await publishOk(gw, 'v1/gateway/telemetry', {
      'Sub A': [
        { ts: 1000, values: { t: 1 } },
        { ts: 2000, values: { t: 2 } },
      ],
    });
    const meter = await connect(s.p.urls.mqtt, s.other.token, 5);
    await publishOk(meter, 'v1/devices/me/telemetry', { power: 1 });
    await stop(s, all.id);
    await stop(s, telemetryOnly.id);

    const { records } = await fileOf(s, all.id);
    expect(ofKind(records, 'device')).toMatchObject([
      { name: 'Gateway 1', type: 'default', gateway: true },
      { name: 'Sub A', type: 'sensor', via: 'Gateway 1' },
    ]);
    expect(ofKind(records, 'mqtt.publish').map((r) => [r.device, r.topic])).toEqual([
      ['Gateway 1', 'v1/gateway/connect'],
      ['Gateway 1', 'v1/gateway/telemetry'],
    ]);
    expect(ofKind(records, 'expect.latest')).toMatchObject([{ device: 'Sub A', values: { t: 2 } }]);

    const topics = (await fileOf(s, telemetryOnly.id)).records;
    expect(ofKind(topics, 'mqtt.publish').map((r) => [r.device, r.topic])).toEqual([
      ['Gateway 1', 'v1/gateway/telemetry'],
    ]);
    expect(ofKind(topics, 'mqtt.connect')).toHaveLength(2);
  });

  it('counts the edge events queued for each edge while it records', async () => {
    const s = await setup();
    const edge = await createEdge(s.p.http, s.token, 'Plant edge');
    await assignDevice(s.p.http, s.token, edge.id, s.thermostat.id);
    const chainId = await rootChainId(s.p.http, s.token);
    await okJson(
      s.p.http('/api/ruleChain/metadata', {
        method: 'POST',
        token: s.token,
        json: withPushToEdge(
          await chainMetadata(s.p.http, s.token, chainId),
          { scope: 'SERVER_SCOPE' },
          false,
        ),
      }),
    );
    const rec = await start(s, { durationMs: 60_000, filter: { devices: ['Thermostat 1'] } });
    const t1 = await connect(s.p.urls.mqtt, s.thermostat.token, 5);
    const meter = await connect(s.p.urls.mqtt, s.other.token, 5);
    await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 21 });
    await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 22 });
    await publishOk(meter, 'v1/devices/me/telemetry', { power: 3 });
    await stop(s, rec.id);
    const { records } = await fileOf(s, rec.id);
    expect(ofKind(records, 'expect.edgeEvents')).toEqual([
      {
        kind: 'expect.edgeEvents',
        t: expect.any(Number),
        edge: 'Plant edge',
        count: 2,
        types: expect.any(Object),
      },
    ]);
    expect(Object.values(ofKind(records, 'expect.edgeEvents')[0]!.types!).reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('stops a recording at its size bound, truncated, saying so; keeps all recordings within their total bound; lists, renames and deletes', async () => {
    const s = await setup({ recordingMaxBytes: 128 * 1024, recordingsMaxBytes: 160 * 1024 });
    const rec = await start(s, { durationMs: 60_000 });
    expect(rec.limitBytes).toBe(128 * 1024);
    const t1 = await connect(s.p.urls.mqtt, s.thermostat.token, 5);
    const big = { note: 'x'.repeat(4000) };
    let info = rec;
    for (let i = 0; i < 60 && info.state === 'recording'; i++) {
      await publishOk(t1, 'v1/devices/me/telemetry', { ...big, n: i });
      info = await okJson<RecordingInfo>(s.p.http(`/api/sandboard/recordings/${rec.id}`, { token: s.token }));
    }
    expect(info).toMatchObject({ state: 'stopped', truncated: true });
    expect(info.reason).toMatch(/reached its size bound \(0\.1 MiB\)/);
    const { records, end } = await fileOf(s, rec.id);
    expect(end).toMatchObject({ truncated: true, reason: info.reason });
    expect(ofKind(records, 'mqtt.publish').length).toBeGreaterThan(10);
    expect(ofKind(records, 'expect.latest')).toHaveLength(1);
    const listed = await list(s);
    expect(listed.recordings).toMatchObject([{ id: rec.id, truncated: true, state: 'stopped' }]);
    expect(listed.recordings[0]!.bytes).toBeLessThanOrEqual(128 * 1024);
    expect(listed.usedBytes).toBe(listed.recordings[0]!.bytes);

    // no room left under the total bound
    await expectTbError(
      await s.p.http('/api/sandboard/recordings', {
        method: 'POST',
        token: s.token,
        json: { durationMs: 1000 },
      }),
      400,
      30,
      /Recordings take .* of their 0\.2 MiB bound \(SANDBOARD_RECORDINGS_MAX_MB\): delete some first/,
    );
    // bad input
    await expectTbError(
      await s.p.http('/api/sandboard/recordings', {
        method: 'POST',
        token: s.token,
        json: { durationMs: 1000, filter: { devicez: [] } },
      }),
      400,
      30,
      /'body\.filter\.devicez' is not allowed/,
    );

    const renamed = await okJson<RecordingInfo>(
      s.p.http(`/api/sandboard/recordings/${rec.id}`, {
        method: 'PUT',
        token: s.token,
        json: { name: 'Big one' },
      }),
    );
    expect(renamed.name).toBe('Big one');
    expect((await fileOf(s, rec.id)).header.name).toBe('Big one');
    expect((await list(s)).recordings[0]!.name).toBe('Big one');

    await okEmpty(s.p.http(`/api/sandboard/recordings/${rec.id}`, { method: 'DELETE', token: s.token }));
    expect((await list(s)).recordings).toEqual([]);
    await expectTbError(
      await s.p.http(`/api/sandboard/recordings/${rec.id}/file`, { token: s.token }),
      404,
      32,
    );
    await expectTbError(
      await s.p.http('/api/sandboard/recordings/..%2Fstore/file', { token: s.token }),
      404,
      32,
    );
    // room again
    expect((await start(s, { durationMs: 100 })).state).toBe('recording');
  });

  it('ends a recording when its duration is over, and keeps recordings across a restart', async () => {
    const s = await setup();
    const rec = await start(s, { durationMs: 300 });
    const t1 = await connect(s.p.urls.mqtt, s.thermostat.token, 4);
    await publishOk(t1, 'v1/devices/me/telemetry', { temperature: 21 });
    let info = rec;
    while (info.state === 'recording') {
      await new Promise((resolve) => setTimeout(resolve, 50));
      info = await okJson<RecordingInfo>(s.p.http(`/api/sandboard/recordings/${rec.id}`, { token: s.token }));
    }
    expect(info).toMatchObject({ state: 'stopped', truncated: false });
    expect(info.reason).toBeUndefined();
    expect(info.recordedMs).toBeGreaterThanOrEqual(300);
    const before = (await fileOf(s, rec.id)).records;
    await s.p.stop();

    const again = await startTestPlatform({ dataDir: s.p.urls.dataDir });
    const token = await again.login();
    const listed = await okJson<RecordingList>(again.http('/api/sandboard/recordings', { token }));
    expect(listed.recordings).toEqual([{ ...info, recordedMs: expect.any(Number) }]);
    const text = await (await again.http(`/api/sandboard/recordings/${rec.id}/file`, { token })).text();
    expect(parseRecording(text).recording?.records).toEqual(before);
  });
});

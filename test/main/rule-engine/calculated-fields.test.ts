/**
 * Calculated fields end to end: saved over REST in ThingsBoard 4.3's shapes, each type fed real telemetry
 * over MQTT, its result entering the rule engine and saved by the default root chain, alarms raised and
 * cleared like the equivalent device profile rule, geofencing enter / leave, bad input refused with
 * ThingsBoard's 400s.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { alarm, numeric, profileWithAlarms, rule } from '../../fixtures/alarm-rules.ts';
import { closeAll, connect, publishOk } from '../transport/mqtt/mqtt-kit.ts';
import { expectTbError, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';

interface Ref {
  entityType: string;
  id: string;
}
interface AlarmJson {
  type: string;
  severity: string;
  status: string;
}

describe('calculated fields', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  afterEach(closeAll);

  const post = <T = Record<string, unknown>>(path: string, json: unknown) =>
    okJson<T>(p.http(path, { method: 'POST', token, json }));
  const saveField = (json: unknown) => post<{ id: Ref; version: number }>('/api/calculatedField', json);
  let seq = 0;
  async function device(profileId?: string): Promise<{ ref: Ref; token: string }> {
    const accessToken = `cf-device-${++seq}-${Date.now()}`;
    const d = await post<{ id: Ref }>(`/api/device?accessToken=${accessToken}`, {
      name: `CF device ${seq} ${Date.now()}`,
      ...(profileId ? { deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profileId } } : {}),
    });
    return { ref: d.id, token: accessToken };
  }
  async function asset(): Promise<Ref> {
    return (
      await post<{ id: Ref }>('/api/asset', { name: `CF asset ${++seq} ${Date.now()}`, type: 'building' })
    ).id;
  }
  const relate = (from: Ref, to: Ref) => post('/api/relation', { from, to, type: 'Contains' });

  /** Resolves when the entity's time series (saved by the chain) carry all these keys. */
  function savedTelemetry(entityId: string, keys: string[]): Promise<Record<string, unknown>> {
    const { events } = p.services.ctx;
    return new Promise((resolve) => {
      const seen: Record<string, unknown> = {};
      const check = (id: string, entries: { values: Record<string, unknown> }[]) => {
        if (id !== entityId) return;
        for (const e of entries) for (const k of keys) if (k in e.values) seen[k] = e.values[k];
        if (keys.every((k) => k in seen)) {
          events.off('telemetry', onDevice);
          events.off('entityTelemetry', onEntity);
          resolve(seen);
        }
      };
      const onDevice = (e: { deviceId: string; entries: { values: Record<string, unknown> }[] }) =>
        check(e.deviceId, e.entries);
      const onEntity = (e: { entityId: string; entries: { values: Record<string, unknown> }[] }) =>
        check(e.entityId, e.entries);
      events.on('telemetry', onDevice);
      events.on('entityTelemetry', onEntity);
    });
  }
  function nextAlarm(originatorId: string): Promise<AlarmJson> {
    const { events } = p.services.ctx;
    return new Promise((resolve) => {
      const on = (e: { alarm: AlarmJson & { originator: Ref } }) => {
        if (e.alarm.originator.id !== originatorId) return;
        events.off('alarm', on);
        resolve(e.alarm);
      };
      events.on('alarm', on);
    });
  }
  /** Temperatures 24, 33, 28, 22 over MQTT: the alarm changes each raised, as `t:type:severity:status`. */
  const sequence = async (d: { ref: Ref; token: string }) => {
    const client = await connect(p.urls.mqtt, d.token, 4);
    const seen: string[] = [];
    for (const t of [24, 33, 28, 22]) {
      const changed = t === 33 || t === 22 ? nextAlarm(d.ref.id) : null;
      await publishOk(client, 'v1/devices/me/telemetry', { temperature: t });
      if (changed) {
        const a = await changed;
        seen.push(`${t}:${a.type}:${a.severity}:${a.status}`);
      }
    }
    return seen;
  };
  const arg = (key: string, type = 'TS_LATEST', extra: Record<string, unknown> = {}) => ({
    refEntityKey: { key, type, ...(type === 'ATTRIBUTE' ? { scope: 'SERVER_SCOPE' } : {}) },
    ...extra,
  });
  /** A SCRIPT field of the entity over t and h, saving its results at once (IMMEDIATE). */
  const immediateScript = (
    entityId: Ref,
    name: string,
    expression: string,
    debugSettings?: Record<string, unknown>,
  ) =>
    saveField({
      entityId,
      type: 'SCRIPT',
      name,
      ...(debugSettings ? { debugSettings } : {}),
      configuration: {
        type: 'SCRIPT',
        arguments: { t: arg('t'), h: arg('h') },
        expression,
        output: {
          type: 'TIME_SERIES',
          strategy: { type: 'IMMEDIATE', saveTimeSeries: true, saveLatest: true, sendWsUpdate: true },
        },
      },
    });
  /** The device's time series writes carrying one of the keys, as they happen (stop() when done). */
  function writesOf(deviceId: string, keys: string[]) {
    const writes: { ts: number; values: Record<string, unknown> }[] = [];
    let wrote = () => {};
    const onTs = (e: { deviceId: string; entries: { ts: number; values: Record<string, unknown> }[] }) => {
      if (e.deviceId !== deviceId) return;
      for (const x of e.entries) if (keys.some((k) => k in x.values)) writes.push(x);
      wrote();
    };
    const { events } = p.services.ctx;
    events.on('telemetry', onTs);
    return {
      writes,
      /** resolves once n writes were made */
      written: (n: number) =>
        new Promise<void>((resolve) => {
          wrote = () => writes.length >= n && resolve();
          wrote();
        }),
      stop: () => events.off('telemetry', onTs),
    };
  }

  it('SIMPLE: the docs example converts °F to °C with two decimals, saved as telemetry by the root chain', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const field = await saveField({
      entityId: d.ref,
      type: 'SIMPLE',
      name: 'Temperature in °C',
      debugSettings: { allEnabled: true },
      configuration: {
        type: 'SIMPLE',
        arguments: { temperature: arg('temperature') },
        expression: '(temperature - 32) / 1.8',
        output: { name: 'temperatureC', type: 'TIME_SERIES', decimalsByDefault: 2 },
      },
    });
    expect(field).toMatchObject({ type: 'SIMPLE', entityId: d.ref, id: { entityType: 'CALCULATED_FIELD' } });
    const client = await connect(p.urls.mqtt, d.token, 4);
    const saved = savedTelemetry(d.ref.id, ['temperatureC']);
    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 77.5 });
    expect(await saved).toEqual({ temperatureC: 25.28 });
    await p.calculatedFields.settled();
    const debug = await okJson<{ body: { arguments: string; result: string } }>(
      p.http(`/api/calculatedField/${field.id.id}/debug`, { token }),
    );
    expect(JSON.parse(debug.body.result)).toEqual({ temperatureC: 25.28 });
    expect(JSON.parse(debug.body.arguments)).toEqual({ temperature: 77.5 });
  });

  it('SCRIPT: TBEL air density from telemetry and a server attribute, on every device of a profile', async () => {
    p = platform();
    token = await p.login();
    const profile = await post<{ id: Ref }>(
      '/api/deviceProfile',
      profileWithAlarms(`CF air ${Date.now()}`, []),
    );
    await saveField({
      entityId: profile.id,
      type: 'SCRIPT',
      name: 'Air density',
      configuration: {
        type: 'SCRIPT',
        arguments: { altitude: arg('altitude', 'ATTRIBUTE'), temperature: arg('temperature') },
        expression: [
          'var temperatureK = (temperature - 32) * (5 / 9) + 273.15;',
          'var pressure = 101325 * Math.pow((1 - 2.25577e-5 * altitude), 5.25588);',
          'var airDensity = pressure / (287.05 * temperatureK);',
          'return {"airDensity": toFixed(airDensity, 2)};',
        ].join('\n'),
        output: { type: 'TIME_SERIES' },
      },
    });
    const d = await device(profile.id.id);
    await post(`/api/plugins/telemetry/DEVICE/${d.ref.id}/attributes/SERVER_SCOPE`, { altitude: 1035 });
    const client = await connect(p.urls.mqtt, d.token, 5);
    const saved = savedTelemetry(d.ref.id, ['airDensity']);
    await publishOk(client, 'v1/devices/me/telemetry', { temperature: 65 });
    expect(await saved).toEqual({ airDensity: 1.07 });
  });

  it('a formula and a script fed by one publish leave as one write, each publish computed on its newest values', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const immediate = {
      type: 'IMMEDIATE',
      saveTimeSeries: true,
      saveLatest: true,
      sendWsUpdate: true,
      processCfs: true,
    };
    await saveField({
      entityId: d.ref,
      type: 'SIMPLE',
      name: 'Sum',
      configuration: {
        type: 'SIMPLE',
        arguments: { t: arg('t'), h: arg('h') },
        expression: 't + h',
        output: { name: 'sum', type: 'TIME_SERIES', strategy: immediate },
      },
    });
    await immediateScript(d.ref, 'Difference', 'return {"diff": t - h};');
    // the results' writes, as the telemetry events of the device carrying an output
    const results = writesOf(d.ref.id, ['sum', 'diff']);
    try {
      const client = await connect(p.urls.mqtt, d.token, 4);
      await publishOk(client, 'v1/devices/me/telemetry', { t: 10, h: 4 });
      await results.written(1);
      await publishOk(client, 'v1/devices/me/telemetry', { t: 20 });
      await results.written(2);
      await p.calculatedFields.settled();
      expect(results.writes.map((w) => w.values)).toEqual([
        { sum: 14, diff: 6 },
        { sum: 24, diff: 16 },
      ]);
      // stored as one packed row a write, read back over REST as ThingsBoard answers: history and latest
      const values = (q: string) =>
        okJson<Record<string, { ts: number; value: string }[]>>(
          p.http(`/api/plugins/telemetry/DEVICE/${d.ref.id}/values/timeseries?keys=sum,diff,t${q}`, {
            token,
          }),
        );
      const history = await values(`&startTs=0&endTs=${Date.now() + 60_000}`);
      expect(history.sum!.map((x) => x.value)).toEqual(['24', '14']);
      expect(history.diff!.map((x) => x.value)).toEqual(['16', '6']);
      expect(history.sum!.map((x) => x.ts)).toEqual(history.t!.map((x) => x.ts));
      const latest = await values('');
      expect([latest.sum![0]!.value, latest.diff![0]!.value]).toEqual(['24', '16']);
      const num = p.services.directory.telemetryNum('DEVICE', d.ref.id);
      expect(
        p.services.ctx.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ts_pack WHERE entity_num = ?', [num])!
          .n,
      ).toBe(2);
    } finally {
      results.stop();
    }
  });

  it('scripts of arithmetic compute numbers without the sandbox and other values in it, every publish in order', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const diff = await immediateScript(d.ref, 'Difference', 'return {"diff": t - h};', { allEnabled: true });
    await immediateScript(d.ref, 'Sum', 'return {"sum": t + h};');
    const results = writesOf(d.ref.id, ['sum', 'diff']);
    try {
      const client = await connect(p.urls.mqtt, d.token, 4);
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 1000, values: { t: 10, h: 4 } });
      // a text value goes to the sandbox (TBEL's + joins it); the number after it waits for that result
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 2000, values: { t: '3' } });
      await publishOk(client, 'v1/devices/me/telemetry', { ts: 3000, values: { t: 5 } });
      await results.written(3);
      await p.calculatedFields.settled();
      expect(results.writes).toEqual([
        { ts: 1000, values: { diff: 6, sum: 14 } },
        { ts: 2000, values: { diff: -1, sum: '34' } },
        { ts: 3000, values: { diff: 1, sum: 9 } },
      ]);
      const debug = await okJson<{ body: { arguments: string; result: string } }>(
        p.http(`/api/calculatedField/${diff.id.id}/debug`, { token }),
      );
      expect(JSON.parse(debug.body.arguments)).toEqual({ t: 5, h: 4 });
      expect(JSON.parse(debug.body.result)).toEqual({ diff: 1 });
    } finally {
      results.stop();
    }
  });

  it("an entity's scripts run in one sandbox call, each saving its own result, a failing one only failing itself", async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const immediate = { type: 'IMMEDIATE', saveTimeSeries: true, saveLatest: true, sendWsUpdate: true };
    const args = { t: arg('t'), h: arg('h') };
    const script = (name: string, expression: string, debug = false) =>
      immediateScript(d.ref, name, expression, debug ? { failuresEnabled: true } : undefined);
    await saveField({
      entityId: d.ref,
      type: 'SIMPLE',
      name: 'Fahrenheit',
      configuration: {
        type: 'SIMPLE',
        arguments: args,
        expression: 't * 1.8 + 32',
        output: { name: 'f', type: 'TIME_SERIES', decimalsByDefault: 1, strategy: immediate },
      },
    });
    await script('Ratio', 'return {"ratio": t / h, "half": h / 2};');
    await script('Label', 'return {"label": t > 15 ? "hot" : "cold", "ts": 1};');
    const failing = await script(
      'Guard',
      'if (t > 15) { raiseError("too hot: " + t); } return {"ok": t};',
      true,
    );
    const client = await connect(p.urls.mqtt, d.token, 4);
    const first = savedTelemetry(d.ref.id, ['f', 'ratio', 'half', 'label', 'ts', 'ok']);
    await publishOk(client, 'v1/devices/me/telemetry', { t: 10, h: 4 });
    expect(await first).toEqual({ f: 50, ratio: 2.5, half: 2, label: 'cold', ts: 1, ok: 10 });
    const second = savedTelemetry(d.ref.id, ['f', 'ratio', 'half', 'label', 'ts']);
    await publishOk(client, 'v1/devices/me/telemetry', { t: 20, h: 8 });
    expect(await second).toEqual({ f: 68, ratio: 2.5, half: 4, label: 'hot', ts: 1 });
    await p.calculatedFields.settled();
    const latest = await okJson<Record<string, { value: unknown }[]>>(
      p.http(
        `/api/plugins/telemetry/DEVICE/${d.ref.id}/values/timeseries?keys=ok,ratio&useStrictDataTypes=true`,
        {
          token,
        },
      ),
    );
    expect(latest.ok?.[0]?.value).toBe(10);
    expect(latest.ratio?.[0]?.value).toBe(2.5);
    const debug = await okJson<{ body: { error: string | null } }>(
      p.http(`/api/calculatedField/${failing.id.id}/debug`, { token }),
    );
    expect(debug.body.error).toContain('too hot: 20');
  });

  it('GEOFENCING: entering and leaving a polygon zone reports ENTERED / LEFT and INSIDE / OUTSIDE', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    await post(`/api/plugins/telemetry/DEVICE/${d.ref.id}/attributes/SERVER_SCOPE`, {
      zone: '[[50.472000, 30.504000], [50.472000, 30.506000], [50.474000, 30.506000], [50.474000, 30.504000]]',
    });
    await saveField({
      entityId: d.ref,
      type: 'GEOFENCING',
      name: 'Allowed zone',
      configuration: {
        type: 'GEOFENCING',
        entityCoordinates: { latitudeKeyName: 'latitude', longitudeKeyName: 'longitude' },
        zoneGroups: {
          allowedZones: {
            perimeterKeyName: 'zone',
            reportStrategy: 'REPORT_TRANSITION_EVENTS_AND_PRESENCE_STATUS',
          },
        },
        output: { type: 'TIME_SERIES' },
      },
    });
    const client = await connect(p.urls.mqtt, d.token, 4);
    let saved = savedTelemetry(d.ref.id, ['allowedZonesEvent', 'allowedZonesStatus']);
    await publishOk(client, 'v1/devices/me/telemetry', { latitude: 50.473, longitude: 30.505 });
    expect(await saved).toEqual({ allowedZonesEvent: 'ENTERED', allowedZonesStatus: 'INSIDE' });
    saved = savedTelemetry(d.ref.id, ['allowedZonesEvent', 'allowedZonesStatus']);
    await publishOk(client, 'v1/devices/me/telemetry', { latitude: 50.476, longitude: 30.505 });
    expect(await saved).toEqual({ allowedZonesEvent: 'LEFT', allowedZonesStatus: 'OUTSIDE' });
  });

  it('ALARM: raises and clears exactly like the equivalent device profile alarm rule', async () => {
    p = platform();
    token = await p.login();
    const hot = alarm(
      'High Temperature',
      { CRITICAL: rule([numeric('temperature', 'GREATER', 30)]) },
      rule([numeric('temperature', 'LESS', 25)]),
    );
    const ruled = await post<{ id: Ref }>(
      '/api/deviceProfile',
      profileWithAlarms(`CF rules ${Date.now()}`, [hot]),
    );
    const plain = await post<{ id: Ref }>(
      '/api/deviceProfile',
      profileWithAlarms(`CF alarm ${Date.now()}`, []),
    );
    const predicate = (operation: string, v: number) => ({
      type: 'NUMERIC',
      operation,
      value: { staticValue: v },
    });
    await saveField({
      entityId: plain.id,
      type: 'ALARM',
      name: 'High Temperature',
      configuration: {
        type: 'ALARM',
        arguments: { temperature: arg('temperature') },
        createRules: {
          CRITICAL: {
            condition: {
              type: 'SIMPLE',
              expression: {
                type: 'SIMPLE',
                filters: [
                  { argument: 'temperature', valueType: 'NUMERIC', predicates: [predicate('GREATER', 30)] },
                ],
                operation: 'AND',
              },
            },
          },
        },
        clearRule: {
          condition: {
            type: 'SIMPLE',
            expression: {
              type: 'SIMPLE',
              filters: [
                { argument: 'temperature', valueType: 'NUMERIC', predicates: [predicate('LESS', 25)] },
              ],
            },
          },
        },
      },
    });
    const byRule = await device(ruled.id.id);
    const byField = await device(plain.id.id);
    const expected = [
      '33:High Temperature:CRITICAL:ACTIVE_UNACK',
      '22:High Temperature:CRITICAL:CLEARED_UNACK',
    ];
    expect(await sequence(byRule)).toEqual(expected);
    expect(await sequence(byField)).toEqual(expected);
  });

  it('a device profile exported from ThingsBoard 4.3 with its calculated fields imports and raises the same alarms', async () => {
    p = platform();
    token = await p.login();
    const exported = JSON.parse(
      readFileSync(new URL('../../fixtures/compat/tb43-device-profile-export.json', import.meta.url), 'utf8'),
    ) as { entity: Record<string, unknown>; calculatedFields: Record<string, unknown>[] };
    const { id: _oldId, tenantId: _tenant, createdTime: _created, version: _v, ...entity } = exported.entity;
    const profile = await post<{ id: Ref }>('/api/deviceProfile', {
      ...entity,
      name: `${String(entity.name)} ${Date.now()}`,
    });
    for (const f of exported.calculatedFields) {
      const { tenantId: _t, ...field } = f;
      await saveField({ ...field, entityId: profile.id });
    }
    const names = await okJson<{ data: { name: string; type: string }[] }>(
      p.http(
        `/api/DEVICE_PROFILE/${profile.id.id}/calculatedFields?pageSize=10&page=0&sortProperty=name&sortOrder=ASC`,
        { token },
      ),
    );
    expect(names.data.map((f) => `${f.type} ${f.name}`)).toEqual([
      'ALARM High Temperature',
      'SIMPLE Temperature in °C',
    ]);
    const hot = alarm(
      'High Temperature',
      { CRITICAL: rule([numeric('temperature', 'GREATER', 30)]) },
      rule([numeric('temperature', 'LESS', 25)]),
    );
    const ruled = await post<{ id: Ref }>(
      '/api/deviceProfile',
      profileWithAlarms(`CF 4.2 rules ${Date.now()}`, [hot]),
    );
    const expected = await sequence(await device(ruled.id.id));
    expect(expected).toEqual([
      '33:High Temperature:CRITICAL:ACTIVE_UNACK',
      '22:High Temperature:CRITICAL:CLEARED_UNACK',
    ]);
    const d = await device(profile.id.id);
    const converted = savedTelemetry(d.ref.id, ['temperatureC']);
    expect(await sequence(d)).toEqual(expected);
    expect(await converted).toEqual({ temperatureC: -4.44 });
  });

  it('PROPAGATION and RELATED_ENTITIES_AGGREGATION: a device reaches its building, the building averages its devices', async () => {
    p = platform();
    token = await p.login();
    const building = await asset();
    const a = await device();
    const b = await device();
    await relate(building, a.ref);
    await relate(building, b.ref);
    await saveField({
      entityId: a.ref,
      type: 'PROPAGATION',
      name: 'Up to the building',
      configuration: {
        type: 'PROPAGATION',
        relation: { direction: 'TO', relationType: 'Contains' },
        arguments: { lastHumidity: arg('humidity') },
        applyExpressionToResolvedArguments: false,
        output: { type: 'TIME_SERIES' },
      },
    });
    await saveField({
      entityId: building,
      type: 'RELATED_ENTITIES_AGGREGATION',
      name: 'Average temperature',
      configuration: {
        type: 'RELATED_ENTITIES_AGGREGATION',
        relation: { direction: 'FROM', relationType: 'Contains' },
        arguments: { temperature: arg('temperature') },
        metrics: {
          avgTemperature: { function: 'AVG', input: { type: 'key', key: 'temperature' } },
          maxTemperature: { function: 'MAX', input: { type: 'key', key: 'temperature' } },
        },
        output: { type: 'TIME_SERIES' },
      },
    });
    const ca = await connect(p.urls.mqtt, a.token, 4);
    const cb = await connect(p.urls.mqtt, b.token, 4);
    let saved = savedTelemetry(building.id, ['lastHumidity']);
    await publishOk(ca, 'v1/devices/me/telemetry', { humidity: 41 });
    expect(await saved).toEqual({ lastHumidity: 41 });
    saved = savedTelemetry(building.id, ['avgTemperature', 'maxTemperature']);
    await publishOk(ca, 'v1/devices/me/telemetry', { temperature: 20 });
    expect(await saved).toEqual({ avgTemperature: 20, maxTemperature: 20 });
    saved = savedTelemetry(building.id, ['avgTemperature', 'maxTemperature']);
    await publishOk(cb, 'v1/devices/me/telemetry', { temperature: 24 });
    expect(await saved).toEqual({ avgTemperature: 22, maxTemperature: 24 });
  });

  it('ENTITY_AGGREGATION: a closed interval is written with its start as ts', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    await saveField({
      entityId: d.ref,
      type: 'ENTITY_AGGREGATION',
      name: 'Energy per minute',
      configuration: {
        type: 'ENTITY_AGGREGATION',
        arguments: { power: arg('power') },
        metrics: {
          avgPower: { function: 'AVG', input: { type: 'key', key: 'power' } },
          samples: { function: 'COUNT', input: { type: 'key', key: 'power' } },
        },
        interval: { type: 'CUSTOM', durationSec: 60 },
        output: { type: 'TIME_SERIES' },
      },
    });
    const client = await connect(p.urls.mqtt, d.token, 4);
    const start = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
    const saved = savedTelemetry(d.ref.id, ['avgPower', 'samples']);
    await publishOk(client, 'v1/devices/me/telemetry', { ts: start + 1000, values: { power: 10 } });
    await publishOk(client, 'v1/devices/me/telemetry', { ts: start + 30_000, values: { power: 20 } });
    await publishOk(client, 'v1/devices/me/telemetry', { ts: start + 61_000, values: { power: 99 } });
    expect(await saved).toEqual({ avgPower: 15, samples: 2 });
    const ts = await okJson<Record<string, { ts: number; value: unknown }[]>>(
      p.http(`/api/plugins/telemetry/DEVICE/${d.ref.id}/values/timeseries?keys=avgPower`, { token }),
    );
    expect(ts.avgPower![0]!.ts).toBe(start);
  });

  it('lists, names, tests, updates and deletes fields over REST', async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const body = {
      entityId: d.ref,
      type: 'SIMPLE',
      name: 'Doubled',
      configuration: {
        type: 'SIMPLE',
        arguments: { x: arg('x') },
        expression: 'x * 2',
        output: { name: 'x2', type: 'TIME_SERIES' },
      },
    };
    const saved = await saveField(body);
    const page = await okJson<{ data: { name: string }[]; totalElements: number }>(
      p.http(`/api/DEVICE/${d.ref.id}/calculatedFields?pageSize=10&page=0`, { token }),
    );
    expect(page).toMatchObject({ totalElements: 1, data: [{ name: 'Doubled' }] });
    const names = await okJson<{ data: string[] }>(
      p.http('/api/calculatedFields/names?type=SIMPLE&pageSize=100&page=0&textSearch=doubl', { token }),
    );
    expect(names.data).toContain('Doubled');
    const updated = await saveField({
      ...body,
      id: saved.id,
      name: 'Tripled',
      configuration: { ...body.configuration, expression: 'x * 3' },
    });
    expect(updated.version).toBe(2);
    expect(
      await okJson(
        p.http('/api/calculatedField/testScript', {
          method: 'POST',
          token,
          json: {
            expression: 'return {"sum": a + ctx.args.b.value, "latest": ctx.latestTs};',
            arguments: {
              a: { type: 'SINGLE_VALUE', ts: 1, value: 2 },
              b: { type: 'SINGLE_VALUE', ts: 2, value: 3 },
            },
          },
        }),
      ),
    ).toEqual({ output: '{"sum":5,"latest":2}', error: '' });
    const del = await p.http(`/api/calculatedField/${saved.id.id}`, { method: 'DELETE', token });
    expect(del.status).toBe(200);
    await expectTbError(
      await p.http(`/api/calculatedField/${saved.id.id}`, { token }),
      404,
      32,
      `Calculated field with id [${saved.id.id}] is not found`,
    );
  });

  it("refuses bad input with ThingsBoard's 400s, and customers with 403", async () => {
    p = platform();
    token = await p.login();
    const d = await device();
    const simple = (over: Record<string, unknown> = {}, config: Record<string, unknown> = {}) => ({
      entityId: d.ref,
      type: 'SIMPLE',
      name: 'F',
      ...over,
      configuration: {
        type: 'SIMPLE',
        arguments: { t: arg('t') },
        expression: 't + 1',
        output: { name: 'o', type: 'TIME_SERIES' },
        ...config,
      },
    });
    const save = (json: unknown) => p.http('/api/calculatedField', { method: 'POST', token, json });
    await expectTbError(
      await save(simple({ type: 'MAGIC' }, { type: 'MAGIC' })),
      400,
      31,
      'Unsupported calculated field type: MAGIC',
    );
    const badExpr = await save(simple({}, { expression: '(t + ' }));
    expect(badExpr.status).toBe(400);
    expect(((await badExpr.json()) as { message: string }).message).toMatch(/^Invalid expression: /);
    await expectTbError(
      await save(simple({}, { expression: 't + humidity' })),
      400,
      31,
      "Invalid expression: Unknown function or variable 'humidity' at pos 4 in expression 't + humidity'",
    );
    const many = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`a${i}`, arg(`k${i}`)]));
    await expectTbError(
      await save(simple({}, { arguments: many, expression: 'a0' })),
      400,
      31,
      'Calculated field arguments limit reached!',
    );
    await expectTbError(
      await save({
        ...simple(),
        type: 'SCRIPT',
        configuration: { ...simple().configuration, type: 'SCRIPT', expression: 'return {' },
      }),
      400,
      31,
      /^Failed to compile script: line 1/,
    );
    for (let i = 0; i < 5; i++) await okJson(save(simple({ name: `F${i}` })));
    await expectTbError(
      await save(simple({ name: 'F5' })),
      400,
      31,
      'Calculated fields per entity limit reached!',
    );
    const customer = await p.login('customer@thingsboard.org', 'customer');
    const refused = await p.http(`/api/DEVICE/${d.ref.id}/calculatedFields?pageSize=10&page=0`, {
      token: customer,
    });
    expect(refused.status).toBe(403);
  });
});

import { describe, expect, it } from 'vitest';
import {
  createDevice,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
} from './api-kit.ts';

type Series = Record<string, { ts: number; value: unknown }[]>;
interface AttributeJson {
  key: string;
  value: unknown;
  lastUpdateTs: number;
}

/** A whole minute an hour ago: history timestamps that no "now" entry can collide with. */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;

describe('telemetry and attributes', () => {
  const platform = useSharedPlatform();
  let counter = 0;

  async function newDevice(): Promise<{ p: ApiPlatform; token: string; url: string }> {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: `telemetry-${++counter}` });
    return { p, token, url: `/api/plugins/telemetry/DEVICE/${device.id.id}` };
  }

  async function post(p: ApiPlatform, token: string, path: string, json: unknown): Promise<void> {
    await okEmpty(p.http(path, { method: 'POST', token, json }));
  }

  it('stores time series sent in the three shapes and answers latest values as strings, typed on request', async () => {
    const { p, token, url } = await newDevice();
    const before = Date.now();
    await post(p, token, `${url}/timeseries/ANY`, {
      temperature: 21.5,
      humidity: 40,
      active: true,
      mode: 'auto',
    });
    const after = Date.now();
    await post(p, token, `${url}/timeseries/ANY`, { ts: BASE, values: { pressure: 1013 } });
    await post(p, token, `${url}/timeseries/ANY`, [
      { ts: BASE + 1, values: { pressure: 1014 } },
      { ts: BASE + 2, values: { pressure: 1015, wind: 3.25 } },
    ]);

    const latest = await okJson<Series>(p.http(`${url}/values/timeseries`, { token }));
    expect(Object.keys(latest).sort()).toEqual([
      'active',
      'humidity',
      'mode',
      'pressure',
      'temperature',
      'wind',
    ]);
    expect(latest.temperature).toHaveLength(1);
    const nowTs = latest.temperature![0]!.ts;
    expect(nowTs).toBeGreaterThanOrEqual(before);
    expect(nowTs).toBeLessThanOrEqual(after);
    expect(latest).toEqual({
      temperature: [{ ts: nowTs, value: '21.5' }],
      humidity: [{ ts: nowTs, value: '40' }],
      active: [{ ts: nowTs, value: 'true' }],
      mode: [{ ts: nowTs, value: 'auto' }],
      pressure: [{ ts: BASE + 2, value: '1015' }],
      wind: [{ ts: BASE + 2, value: '3.25' }],
    });

    const strict = await okJson<Series>(
      p.http(
        `${url}/values/timeseries?keys=temperature,humidity,active,mode,pressure&useStrictDataTypes=true`,
        {
          token,
        },
      ),
    );
    expect(strict).toEqual({
      temperature: [{ ts: nowTs, value: 21.5 }],
      humidity: [{ ts: nowTs, value: 40 }],
      active: [{ ts: nowTs, value: true }],
      mode: [{ ts: nowTs, value: 'auto' }],
      pressure: [{ ts: BASE + 2, value: 1015 }],
    });

    const some = await okJson<Series>(
      p.http(`${url}/values/timeseries?keys=pressure,wind,unknownKey`, { token }),
    );
    expect(Object.keys(some).sort()).toEqual(['pressure', 'wind']);
    expect(await okJson(p.http(`${url}/keys/timeseries`, { token }))).toEqual([
      'active',
      'humidity',
      'mode',
      'pressure',
      'temperature',
      'wind',
    ]);
  });

  it('keeps the newest value as latest when an older point arrives later', async () => {
    const { p, token, url } = await newDevice();
    await post(p, token, `${url}/timeseries/ANY`, { ts: BASE + 5000, values: { level: 5 } });
    await post(p, token, `${url}/timeseries/ANY`, { ts: BASE + 1000, values: { level: 1 } });
    expect(await okJson(p.http(`${url}/values/timeseries?keys=level`, { token }))).toEqual({
      level: [{ ts: BASE + 5000, value: '5' }],
    });
    const history = await okJson<Series>(
      p.http(`${url}/values/timeseries?keys=level&startTs=${BASE}&endTs=${BASE + 9000}`, { token }),
    );
    expect(history.level!.map((x) => x.ts)).toEqual([BASE + 5000, BASE + 1000]);
  });

  it('answers history within startTs/endTs, newest first, with limit and orderBy', async () => {
    const { p, token, url } = await newDevice();
    const points = Array.from({ length: 10 }, (_, i) => ({
      ts: BASE + i * 1000,
      values: { v: i * i, other: -i },
    }));
    await post(p, token, `${url}/timeseries/ANY`, points);
    const q = (s: string) => okJson<Series>(p.http(`${url}/values/timeseries?${s}`, { token }));

    const all = await q(`keys=v&startTs=${BASE - 500}&endTs=${BASE + 9500}`);
    expect(all.v).toEqual(points.map((pt) => ({ ts: pt.ts, value: String(pt.values.v) })).reverse());

    const limited = await q(`keys=v&startTs=${BASE - 500}&endTs=${BASE + 9500}&limit=3`);
    expect(limited.v!.map((x) => x.ts)).toEqual([BASE + 9000, BASE + 8000, BASE + 7000]);
    const ascending = await q(`keys=v&startTs=${BASE - 500}&endTs=${BASE + 9500}&limit=3&orderBy=ASC`);
    expect(ascending.v).toEqual([
      { ts: BASE, value: '0' },
      { ts: BASE + 1000, value: '1' },
      { ts: BASE + 2000, value: '4' },
    ]);
    const window = await q(
      `keys=v,other&startTs=${BASE + 1500}&endTs=${BASE + 4500}&orderBy=ASC&useStrictDataTypes=true`,
    );
    expect(window).toEqual({
      v: [
        { ts: BASE + 2000, value: 4 },
        { ts: BASE + 3000, value: 9 },
        { ts: BASE + 4000, value: 16 },
      ],
      other: [
        { ts: BASE + 2000, value: -2 },
        { ts: BASE + 3000, value: -3 },
        { ts: BASE + 4000, value: -4 },
      ],
    });
    const everyKey = await q(`startTs=${BASE + 8500}&endTs=${BASE + 9500}`);
    expect(everyKey).toEqual({
      v: [{ ts: BASE + 9000, value: '81' }],
      other: [{ ts: BASE + 9000, value: '-9' }],
    });
    expect(await q(`keys=v&startTs=${BASE - 90_000}&endTs=${BASE - 60_000}`)).toEqual({});

    await expectTbError(
      await p.http(`${url}/values/timeseries?keys=v&startTs=${BASE + 5000}&endTs=${BASE}`, { token }),
      400,
      30,
      'startTs',
    );
    await expectTbError(
      await p.http(`${url}/values/timeseries?keys=v&startTs=yesterday&endTs=${BASE}`, { token }),
      400,
      31,
      'startTs',
    );
    await expectTbError(
      await p.http(`${url}/values/timeseries?keys=v&startTs=${BASE}&endTs=${BASE + 1}&agg=MEDIAN`, { token }),
      400,
      31,
      'agg',
    );
  });

  /** Posts irregular samples from base on and checks every aggregation against a computation done here. */
  async function checkAggregation(base: number): Promise<void> {
    const { p, token, url } = await newDevice();
    // irregular points, longs and doubles, and one exactly at endTs (outside: intervals are [start, end))
    const samples: [number, number][] = [
      [0, 10],
      [700, 12.5],
      [2999, -3],
      [3000, 7],
      [3100, 7],
      [5500, 100],
      [9200, 1.25],
      [9900, 2],
      [10_000, 999],
    ];
    await post(
      p,
      token,
      `${url}/timeseries/ANY`,
      samples.map(([dt, value]) => ({ ts: base + dt, values: { load: value } })),
    );
    const startTs = base;
    const endTs = base + 10_000;
    const interval = 3000;

    const reduce: Record<string, (xs: number[]) => number> = {
      AVG: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
      MIN: (xs) => Math.min(...xs),
      MAX: (xs) => Math.max(...xs),
      SUM: (xs) => xs.reduce((a, b) => a + b, 0),
      COUNT: (xs) => xs.length,
    };
    function expected(agg: string, order: 'ASC' | 'DESC'): { ts: number; value: number }[] {
      const out: { ts: number; value: number }[] = [];
      for (let from = startTs; from < endTs; from += interval) {
        const to = Math.min(from + interval, endTs);
        const xs = samples.filter(([dt]) => base + dt >= from && base + dt < to).map(([, v]) => v);
        if (xs.length > 0) out.push({ ts: from + Math.floor((to - from) / 2), value: reduce[agg]!(xs) });
      }
      return order === 'ASC' ? out : out.reverse();
    }

    for (const agg of Object.keys(reduce)) {
      for (const order of ['ASC', 'DESC'] as const) {
        const res = await okJson<Series>(
          p.http(
            `${url}/values/timeseries?keys=load&startTs=${startTs}&endTs=${endTs}&interval=${interval}&agg=${agg}&orderBy=${order}`,
            { token },
          ),
        );
        const want = expected(agg, order);
        // [6000, 9000) is empty and left out; the last interval is the partial [9000, 10000)
        expect(want.map((x) => x.ts - base)).toEqual(
          order === 'ASC' ? [1500, 4500, 9500] : [9500, 4500, 1500],
        );
        const got = res.load!;
        expect(
          got.map((x) => x.ts - base),
          `${agg} ${order}`,
        ).toEqual(want.map((x) => x.ts - base));
        got.forEach((x, i) => {
          expect(typeof x.value, `${agg}: values are strings by default`).toBe('string');
          expect(Number(x.value), `${agg} at ${x.ts}`).toBeCloseTo(want[i]!.value, 9);
        });
      }
    }

    const strict = await okJson<Series>(
      p.http(
        `${url}/values/timeseries?keys=load&startTs=${startTs}&endTs=${endTs}&interval=${interval}&agg=SUM&orderBy=ASC&useStrictDataTypes=true`,
        { token },
      ),
    );
    expect(strict.load!.map((x) => x.value)).toEqual(expected('SUM', 'ASC').map((x) => x.value));

    // without an interval the whole range is one interval
    const whole = await okJson<Series>(
      p.http(`${url}/values/timeseries?keys=load&startTs=${startTs}&endTs=${endTs}&agg=COUNT`, { token }),
    );
    expect(whole.load).toEqual([{ ts: startTs + 5000, value: String(samples.length - 1) }]);
  }

  it('aggregates AVG, MIN, MAX, SUM and COUNT per interval as an independent computation does', async () => {
    await checkAggregation(1_000_000_000);
  });

  // sql.js binds numbers beyond 2^31 as REAL: interval division must still be integral.
  it('aggregates per interval with real epoch-millisecond timestamps', async () => {
    await checkAggregation(BASE);
  });

  it('saves SERVER_SCOPE and SHARED_SCOPE attributes, refuses CLIENT_SCOPE, and reads them back', async () => {
    const { p, token, url } = await newDevice();
    const before = Date.now();
    await post(p, token, `${url}/attributes/SERVER_SCOPE`, {
      serial: 'SN-1',
      ratio: 0.5,
      limits: { max: 10 },
    });
    await post(p, token, `${url}/SHARED_SCOPE`, { targetTemp: 22, enabled: false });
    const after = Date.now();
    await expectTbError(
      await p.http(`${url}/attributes/CLIENT_SCOPE`, { method: 'POST', token, json: { fw: '1.0' } }),
      400,
      30,
      'CLIENT_SCOPE',
    );
    await expectTbError(
      await p.http(`${url}/CLIENT_SCOPE`, { method: 'POST', token, json: { fw: '1.0' } }),
      400,
      30,
      'CLIENT_SCOPE',
    );
    await expectTbError(
      await p.http(`${url}/attributes/DEVICE_SCOPE`, { method: 'POST', token, json: { fw: '1.0' } }),
      400,
      31,
      'scope',
    );

    const all = await okJson<AttributeJson[]>(p.http(`${url}/values/attributes`, { token }));
    expect(all.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: 'enabled', value: false },
      { key: 'limits', value: { max: 10 } },
      { key: 'ratio', value: 0.5 },
      { key: 'serial', value: 'SN-1' },
      { key: 'targetTemp', value: 22 },
    ]);
    for (const a of all) {
      expect(Object.keys(a).sort()).toEqual(['key', 'lastUpdateTs', 'value']);
      expect(a.lastUpdateTs).toBeGreaterThanOrEqual(before);
      expect(a.lastUpdateTs).toBeLessThanOrEqual(after);
    }
    const server = await okJson<AttributeJson[]>(
      p.http(`${url}/values/attributes/SERVER_SCOPE?keys=serial,ratio,targetTemp`, { token }),
    );
    expect(server.map((a) => a.key)).toEqual(['ratio', 'serial']);
    const shared = await okJson<AttributeJson[]>(p.http(`${url}/values/attributes/SHARED_SCOPE`, { token }));
    expect(shared.map((a) => [a.key, a.value])).toEqual([
      ['enabled', false],
      ['targetTemp', 22],
    ]);
    const filtered = await okJson<AttributeJson[]>(
      p.http(`${url}/values/attributes?keys=targetTemp`, { token }),
    );
    expect(filtered.map((a) => a.key)).toEqual(['targetTemp']);
    expect(await okJson(p.http(`${url}/values/attributes/CLIENT_SCOPE`, { token }))).toEqual([]);
    expect(await okJson(p.http(`${url}/keys/attributes/SHARED_SCOPE`, { token }))).toEqual([
      'enabled',
      'targetTemp',
    ]);
    expect(((await okJson<string[]>(p.http(`${url}/keys/attributes`, { token }))) ?? []).sort()).toEqual([
      'enabled',
      'limits',
      'ratio',
      'serial',
      'targetTemp',
    ]);

    // an update replaces the value and moves lastUpdateTs
    const firstTs = server.find((a) => a.key === 'serial')!.lastUpdateTs;
    await post(p, token, `${url}/SERVER_SCOPE`, { serial: 'SN-2' });
    const [serial] = await okJson<AttributeJson[]>(
      p.http(`${url}/values/attributes/SERVER_SCOPE?keys=serial`, { token }),
    );
    expect(serial!.value).toBe('SN-2');
    expect(serial!.lastUpdateTs).toBeGreaterThanOrEqual(firstTs);
  });

  it('deletes attributes of one scope by key', async () => {
    const { p, token, url } = await newDevice();
    await post(p, token, `${url}/SERVER_SCOPE`, { a: 1, b: 2, c: 3 });
    await post(p, token, `${url}/SHARED_SCOPE`, { a: 'shared' });
    await okEmpty(p.http(`${url}/SERVER_SCOPE?keys=a,b`, { method: 'DELETE', token }));
    expect(
      (await okJson<AttributeJson[]>(p.http(`${url}/values/attributes`, { token }))).map((x) => [
        x.key,
        x.value,
      ]),
    ).toEqual([
      ['a', 'shared'],
      ['c', 3],
    ]);
    await expectTbError(await p.http(`${url}/SERVER_SCOPE`, { method: 'DELETE', token }), 400, 31, 'keys');
  });

  it('deletes time series: all data of keys, or a time range, the latest value as ThingsBoard does', async () => {
    const { p, token, url } = await newDevice();
    await post(
      p,
      token,
      `${url}/timeseries/ANY`,
      [0, 1, 2, 3].map((i) => ({ ts: BASE + i * 1000, values: { x: i, y: i * 10 } })),
    );
    await okEmpty(
      p.http(`${url}/timeseries/delete?keys=y&deleteAllDataForKeys=true`, { method: 'DELETE', token }),
    );
    expect(await okJson(p.http(`${url}/keys/timeseries`, { token }))).toEqual(['x']);
    expect(
      await okJson(p.http(`${url}/values/timeseries?keys=y&startTs=${BASE}&endTs=${BASE + 5000}`, { token })),
    ).toEqual({});

    await okEmpty(
      p.http(
        `${url}/timeseries/delete?keys=x&startTs=${BASE + 2000}&endTs=${BASE + 4000}&rewriteLatestIfDeleted=true`,
        { method: 'DELETE', token },
      ),
    );
    expect(await okJson(p.http(`${url}/values/timeseries`, { token }))).toEqual({
      x: [{ ts: BASE + 1000, value: '1' }],
    });
    const history = await okJson<Series>(
      p.http(`${url}/values/timeseries?keys=x&startTs=${BASE}&endTs=${BASE + 5000}&orderBy=ASC`, { token }),
    );
    expect(history.x!.map((x) => x.ts)).toEqual([BASE, BASE + 1000]);

    // deleteLatest=false keeps the latest value; by default it goes and is not replaced (ThingsBoard's defaults).
    const range = `keys=x&startTs=${BASE + 500}&endTs=${BASE + 1500}`;
    await okEmpty(
      p.http(`${url}/timeseries/delete?${range}&deleteLatest=false`, { method: 'DELETE', token }),
    );
    expect(await okJson(p.http(`${url}/values/timeseries`, { token }))).toEqual({
      x: [{ ts: BASE + 1000, value: '1' }],
    });
    await okEmpty(p.http(`${url}/timeseries/delete?${range}`, { method: 'DELETE', token }));
    expect(await okJson(p.http(`${url}/values/timeseries`, { token }))).toEqual({});
    const left = await okJson<Series>(
      p.http(`${url}/values/timeseries?keys=x&startTs=${BASE}&endTs=${BASE + 5000}`, { token }),
    );
    expect(left.x!.map((x) => x.ts)).toEqual([BASE]);

    await expectTbError(
      await p.http(`${url}/timeseries/delete?keys=x`, { method: 'DELETE', token }),
      400,
      30,
      'deleteAllDataForKeys',
    );
    await expectTbError(
      await p.http(`${url}/timeseries/delete`, { method: 'DELETE', token }),
      400,
      31,
      'keys',
    );
  });

  it("serves ThingsBoard's legacy attribute paths without the entity type, and time series with a TTL", async () => {
    const { p, token, url } = await newDevice();
    const deviceId = url.split('/').pop()!;
    const legacy = `/api/plugins/telemetry/${deviceId}`;
    await post(p, token, `${legacy}/SERVER_SCOPE`, { floor: 3, room: 'B12' });
    await post(p, token, `${legacy}/SHARED_SCOPE`, { setpoint: 21 });
    const server = await okJson<AttributeJson[]>(p.http(`${url}/values/attributes/SERVER_SCOPE`, { token }));
    expect(server.map(({ key, value }) => [key, value])).toEqual([
      ['floor', 3],
      ['room', 'B12'],
    ]);
    await okEmpty(p.http(`${legacy}/SERVER_SCOPE?keys=room`, { method: 'DELETE', token }));
    expect(
      (await okJson<AttributeJson[]>(p.http(`${url}/values/attributes/SERVER_SCOPE`, { token }))).map(
        (a) => a.key,
      ),
    ).toEqual(['floor']);
    await expectTbError(
      await p.http(`${legacy}/CLIENT_SCOPE`, { method: 'POST', token, json: { x: 1 } }),
      400,
      30,
    );
    await expectTbError(
      await p.http(`${legacy}/NO_SCOPE`, { method: 'POST', token, json: { x: 1 } }),
      400,
      31,
    );

    // POST .../timeseries/{scope}/{ttl}: the TTL is accepted (ThingsBoard on SQL ignores it too)
    await post(p, token, `${url}/timeseries/ANY/3600`, { ts: BASE, values: { level: 7 } });
    expect(await okJson(p.http(`${url}/values/timeseries?keys=level`, { token }))).toEqual({
      level: [{ ts: BASE, value: '7' }],
    });
    await expectTbError(
      await p.http(`${url}/timeseries/ANY/-5`, { method: 'POST', token, json: { level: 1 } }),
      400,
      31,
      'ttl',
    );

    // calendar intervals are refused by name; fixed ones (MILLISECONDS) work with their timeZone
    const range = `keys=level&startTs=${BASE}&endTs=${BASE + 60_000}&agg=AVG&interval=60000`;
    expect(
      await okJson(
        p.http(`${url}/values/timeseries?${range}&intervalType=MILLISECONDS&timeZone=Europe/Kyiv`, { token }),
      ),
    ).toEqual({ level: [{ ts: BASE + 30_000, value: '7' }] });
    await expectTbError(
      await p.http(`${url}/values/timeseries?${range}&intervalType=MONTH`, { token }),
      400,
      30,
      'MONTH',
    );
  });

  it('refuses unknown entity types with 400 and entities that do not exist with 404', async () => {
    const { p, token } = await newDevice();
    const id = crypto.randomUUID();
    await expectTbError(
      await p.http(`/api/plugins/telemetry/GADGET/${id}/values/timeseries`, { token }),
      400,
      31,
      "'GADGET'",
    );
    await expectTbError(
      await p.http(`/api/plugins/telemetry/CUSTOMER/${id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { a: 1 },
      }),
      404,
      32,
      'Customer with id',
    );
    await expectTbError(
      await p.http(`/api/plugins/telemetry/ASSET/${id}/SERVER_SCOPE`, {
        method: 'POST',
        token,
        json: { a: 1 },
      }),
      404,
      32,
      'Asset with id',
    );
    await expectTbError(
      await p.http(`/api/plugins/telemetry/DEVICE/${id}/values/timeseries`, { token }),
      404,
      32,
      id,
    );
    await expectTbError(
      await p.http('/api/plugins/telemetry/DEVICE/123/values/timeseries', { token }),
      400,
      31,
      'entityId',
    );
  });

  it('refuses bodies that are not JSON objects of data with 400', async () => {
    const { p, token, url } = await newDevice();
    for (const body of ['[1,2]', '"text"', '42', 'null', 'true', '{}']) {
      const res = await p.http(`${url}/SERVER_SCOPE`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body,
      });
      const err = await expectTbError(res, 400, 30);
      expect(err.message, body).toMatch(/object|attributes|body/i);
    }
    for (const body of [
      '[1]',
      '[]',
      '"text"',
      '42',
      'null',
      '{}',
      '{"ts":"soon","values":{"a":1}}',
      '[{"ts":1,"values":5}]',
    ]) {
      const res = await p.http(`${url}/timeseries/ANY`, {
        method: 'POST',
        token,
        headers: { 'content-type': 'application/json' },
        body,
      });
      const err = await expectTbError(res, 400, 30);
      expect(err.message, body).toMatch(/object|telemetry|body|ts|values|\[/i);
    }
    expect(await okJson(p.http(`${url}/keys/timeseries`, { token }))).toEqual([]);
    expect(await okJson(p.http(`${url}/values/attributes`, { token }))).toEqual([]);
  });
});

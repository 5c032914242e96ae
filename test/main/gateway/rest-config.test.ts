import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadRestConfig, RestConfigError } from '../../../main/gateway/connectors/rest/config.ts';
import {
  createConverter,
  JsonUplinkConverter,
  typedValue,
} from '../../../main/gateway/connectors/rest/converters.ts';
import { lookup, render } from '../../../main/gateway/connectors/rest/expressions.ts';
import { parseTimestamp } from '../../../main/gateway/connectors/rest/timestamps.ts';
import { DEFAULT_REST_CONFIG, validateRestConfig } from '../../../shared/schemas/rest-connector.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { compatConfig } from './gateway-kit.ts';

describe('rest.json', () => {
  it('loads both compat configurations unchanged, the new and the legacy format', () => {
    const modern = compatConfig('tb-gateway-default-rest.json');
    const legacy = compatConfig('tb-gateway-legacy-rest.json');
    expect(validateRestConfig(modern)).toEqual({ valid: true, format: 'new', errors: [], warnings: [] });
    expect(validateRestConfig(legacy)).toEqual({ valid: true, format: 'legacy', errors: [], warnings: [] });
    const a = loadRestConfig(modern);
    const b = loadRestConfig(legacy);
    for (const c of [a, b]) {
      expect(c.server).toMatchObject({ host: '127.0.0.1', port: 5000, ssl: false }); // "port": "5000"
      expect(c.mapping.map((m) => [m.endpoint, m.methods])).toEqual([
        ['/my_devices', ['POST']],
        ['/anon1', ['GET', 'POST']],
        ['/anon2', ['POST']],
      ]);
      expect(c.mapping[0]!.converter).toMatchObject({
        type: 'json',
        deviceInfo: { nameExpression: '${sensorName}', profileExpression: '${sensorType}' },
      });
      expect(c.mapping[2]!.converter).toMatchObject({
        type: 'custom',
        extension: 'CustomRestUplinkConverter',
      });
      expect(c.attributeRequests[0]).toMatchObject({
        endpoint: '/sharedAttributes',
        scope: 'shared',
        timeoutMs: 10_000,
      });
      expect(c.attributeUpdates[0]).toMatchObject({
        method: 'POST',
        timeoutMs: 500,
        tries: 3,
        allowRedirects: true,
      });
      expect(c.serverSideRpc.map((r) => r.responseTimeoutMs)).toEqual([1000, 1000, undefined]);
    }
    // the gateway's own default is what the editor offers as a template
    expect(DEFAULT_REST_CONFIG).toEqual(modern);
    expect(a.attributeUpdates[1]!.security).toMatchObject({
      type: 'cert',
      cert: '/thingsboard_gateway/config/cert.pem',
    });
  });

  it("applies the spec's defaults; SSL is off unless asked for", () => {
    const c = loadRestConfig({
      mapping: [{ converter: { timeseries: [{ key: 't', value: '${t}' }] }, security: {} }],
      requestsMapping: { attributeRequests: [{}], attributeUpdates: [{}], serverSideRpc: [{}] },
    });
    expect(c.server).toEqual({ host: '127.0.0.1', port: 5000, ssl: false });
    expect(c.mapping[0]).toMatchObject({
      endpoint: '/test_device',
      methods: ['GET'],
      security: { type: 'basic', username: 'username', password: 'password' },
      response: { kind: 'status' },
      converter: {
        type: 'json',
        deviceInfo: { nameExpression: 'Device ${name}', nameSource: 'request', profileExpression: 'default' },
        timeseries: [{ type: 'string', dayfirst: false, yearfirst: false }],
      },
    });
    expect(c.attributeRequests[0]).toMatchObject({
      endpoint: '/sharedAttributes',
      scope: 'shared',
      methods: ['POST'],
      timeoutMs: 10_000,
      deviceNameExpression: '${deviceName}',
      attributeNameExpression: '${attribute}',
    });
    const update = c.attributeUpdates[0]!;
    expect(update).toMatchObject({
      method: 'POST',
      sslVerify: false,
      headers: { 'CONTENT-TYPE': 'application/json' },
      security: { type: 'basic', username: 'user', password: 'passwd' },
      timeoutMs: 500,
      tries: 3,
      allowRedirects: true,
      requestUrlExpression: 'sensor/${deviceName}/${attributeKey}',
    });
    expect(update.deviceNameFilter.test('Kitchen REST')).toBe(true);
    expect(update.attributeFilter.test('data')).toBe(true);
    expect(update.attributeFilter.test('data2')).toBe(false); // a filter matches the whole name
    expect(c.serverSideRpc[0]).toMatchObject({
      method: 'GET',
      security: { type: 'anonymous' },
      requestUrlExpression: 'http://127.0.0.1:5001/${deviceName}',
      valueExpression: '${params}',
      timeoutMs: 500,
      tries: 3,
    });
    expect(c.serverSideRpc[0]!.methodFilter.test('echo')).toBe(true);
    expect(loadRestConfig({ server: { SSL: false } }).server.ssl).toBe(false);
  });

  it('refuses a bad configuration with an error naming each JSON path', () => {
    const bad = {
      server: { port: 'eighty', SSL: true },
      mapping: [
        {
          endpoint: 'no-slash',
          HTTPMethods: ['POST', 'FETCH'],
          security: { type: 'oauth' },
          converter: {
            type: 'json',
            timeseries: [{ key: 'temperature', value: '${temp', type: 'decimal' }, { value: '${x}' }],
          },
        },
        { endpoint: '/dup', HTTPMethods: ['POST'], converter: {} },
        { endpoint: '/dup', HTTPMethods: ['post'], converter: {} },
      ],
      requestsMapping: {
        attributeUpdates: [{ deviceNameFilter: '([', tries: 0 }],
        serverSideRpc: [{ timeout: 'soon', security: { type: 'cert' } }],
      },
      logLevel: 'DEBUG',
      unknownKey: true,
    };
    const v = validateRestConfig(bad);
    expect(v.valid).toBe(false);
    const paths = v.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'server.port',
        'server.security.cert',
        'server.security.key',
        'mapping[0].endpoint',
        'mapping[0].HTTPMethods[1]',
        'mapping[0].security.type',
        'mapping[0].converter.timeseries[0].type',
        'mapping[0].converter.timeseries[0].value',
        'mapping[0].converter.timeseries[1].key',
        'mapping[2].endpoint',
        'requestsMapping.attributeUpdates[0].deviceNameFilter',
        'requestsMapping.attributeUpdates[0].tries',
        'requestsMapping.serverSideRpc[0].timeout',
        'requestsMapping.serverSideRpc[0].security.cert',
      ]),
    );
    expect(v.errors.find((e) => e.path === 'mapping[2].endpoint')!.message).toBe(
      'POST /dup is already served by mapping[1]',
    );
    expect(v.errors.find((e) => e.path === 'mapping[0].converter.timeseries[1].key')!.message).toBe(
      'is required',
    );
    expect(v.warnings).toEqual([{ path: 'unknownKey', message: 'is not a known key (ignored)' }]);
    expect(() => loadRestConfig(bad)).toThrow(RestConfigError);
    expect(() => loadRestConfig(bad)).toThrow(/mapping\[0\]\.HTTPMethods\[1\]: must be one of GET, POST/);
    expect(validateRestConfig([]).errors).toEqual([
      { path: '', message: 'must be a JSON object (the content of rest.json)' },
    ]);
  });

  it('refuses a rest.json nested 4,600 levels deep, naming where, without overflowing the stack', () => {
    const deep = JSON.parse(`{"mapping":[${'{"a":'.repeat(4_600)}1${'}'.repeat(4_600)}]}`) as unknown;
    const v = validateRestConfig(deep);
    expect(v.valid).toBe(false);
    expect(v.errors[0]!.path).toMatch(/^mapping\[0\]\.a\.a/);
    expect(v.errors[0]!.message).toMatch(/nested deeper than 64 levels/);
    expect(() => loadRestConfig(deep)).toThrow(RestConfigError);
  });
});

describe('expressions', () => {
  const data = {
    temp: 21.5,
    hum: '40',
    'odd.key': 'x',
    data: { value: 7, list: [1, { v: 'two' }] },
    arr: ['a', 'b'],
  };

  it('reads a top-level key, else a JSONPath, and combines several tokens', () => {
    expect(render('${temp}', data)).toBe(21.5); // one token keeps its type
    expect(render('${hum}:${temp}', data)).toBe('40:21.5');
    expect(render('${odd.key}', data)).toBe('x'); // the key itself wins over the path
    expect(render('${data.value}', data)).toBe(7);
    expect(render('${$.data.value}', data)).toBe(7);
    expect(render('${arr[1]}', data)).toBe('b');
    expect(render('${data.list[1].v}', data)).toBe('two');
    expect(render("${$['data']['value']}", data)).toBe(7);
    expect(render('Device ${arr[0]}', data)).toBe('Device a');
    expect(render('${missing}', data)).toBeUndefined();
    expect(render('${hum}:${missing}', data)).toBeUndefined(); // not "40:None"
    expect(render('constant', data)).toBe('constant');
    expect(lookup(data, 'data.list[-1].v')).toBe('two');
  });

  it('applies value types: string, double, integer, boolean', () => {
    expect(typedValue('21.5', 'double')).toEqual({ value: 21.5 });
    expect(typedValue(' 7 ', 'integer')).toEqual({ value: 7 });
    expect(typedValue(7.9, 'int')).toEqual({ value: 7 });
    expect(typedValue('true', 'boolean')).toEqual({ value: true });
    expect(typedValue('off', 'bool')).toEqual({ value: false });
    expect(typedValue(0, 'boolean')).toEqual({ value: false });
    expect(typedValue(21.5, 'string')).toEqual({ value: '21.5' });
    expect(typedValue({ a: 1 }, 'string')).toEqual({ value: '{"a":1}' });
    expect(typedValue('abc', 'double')).toEqual({ error: '"abc" is not a number' });
    expect(typedValue('maybe', 'boolean')).toEqual({ error: '"maybe" is not a boolean' });
  });
});

describe('timestamps', () => {
  let tz: string | undefined;
  beforeEach(() => {
    tz = process.env.TZ;
    process.env.TZ = 'UTC'; // compat's examples are in UTC; naive times are local time
  });
  afterEach(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  it("reads compat's examples with dayfirst and yearfirst", () => {
    const s = '10.11.25 10:35:12.123';
    expect(parseTimestamp(s)).toBe(1760178912123);
    expect(parseTimestamp(s, { dayfirst: true })).toBe(1762770912123);
    expect(parseTimestamp(s, { yearfirst: true })).toBe(1290681312123);
  });

  it('reads ISO dates, zones, epoch seconds and milliseconds; naive times are local', () => {
    expect(parseTimestamp('2025-10-11T10:35:12.123Z')).toBe(1760178912123);
    expect(parseTimestamp('2025-10-11T12:35:12.123+02:00')).toBe(1760178912123);
    expect(parseTimestamp('2025-10-11 10:35:12')).toBe(1760178912000);
    expect(parseTimestamp('25.12.2025 01:00', { dayfirst: true })).toBe(Date.UTC(2025, 11, 25, 1));
    expect(parseTimestamp('13.12.25')).toBe(Date.UTC(2025, 11, 13)); // 13 cannot be a month: the day
    expect(parseTimestamp(1760178912)).toBe(1760178912000);
    expect(parseTimestamp('1760178912123')).toBe(1760178912123);
    expect(parseTimestamp('10/11/2025 10:35:12 PM')).toBe(Date.UTC(2025, 9, 11, 22, 35, 12));
    expect(parseTimestamp('not a date')).toBeUndefined();
    process.env.TZ = 'Asia/Tokyo';
    expect(parseTimestamp('10.11.25 10:35:12.123')).toBe(1760178912123 - 9 * 3_600_000);
  });

  it('the json converter uses tsField, else ts / timestamp, and skips None values', () => {
    const config = loadRestConfig({
      mapping: [
        {
          endpoint: '/t',
          converter: {
            deviceInfo: { deviceNameExpression: '${dev}' },
            attributes: [{ key: '${kind}_model', value: '${model}' }],
            timeseries: [
              { key: 'a', value: '${a}', type: 'double', tsField: '${when}', dayfirst: true },
              { key: 'b', value: '${b}', type: 'integer' },
              { key: 'c', value: '${c}', type: 'double' },
            ],
          },
        },
      ],
    });
    const spec = config.mapping[0]!.converter;
    if (spec.type !== 'json') throw new Error('json expected');
    const converter = new JsonUplinkConverter(spec);
    const out = converter.convert({
      dev: 'D1',
      kind: 'x',
      model: 'M',
      a: '1.5',
      b: '2',
      c: 'n/a',
      when: '10.11.25 10:35:12.123',
      ts: 1000,
    });
    expect(out.deviceName).toBe('D1');
    expect(out.deviceType).toBe('default');
    expect(out.attributes).toEqual({ x_model: 'M' }); // a templated key
    expect(out.telemetry).toEqual([
      { ts: 1762770912123, values: { a: 1.5 } },
      { ts: 1_000_000, values: { b: 2 } }, // ts in seconds -> ms
    ]);
    expect(out.warnings).toEqual(['c: "n/a" is not a number (type double; not sent)']);
    const noTs = converter.convert({ dev: 'D1', timestamp: '2025-10-11T10:35:12.123Z', b: 3 });
    expect(noTs.telemetry).toEqual([{ ts: 1760178912123, values: { b: 3 } }]);
    expect(noTs.attributes).toEqual({}); // None values are not sent
  });
});

describe('custom converters', () => {
  it('copies the sample into the converters folder on first use, under either of the spec spellings', async () => {
    const dir = join(tempDir(), 'converters');
    for (const extension of ['CustomRESTUplinkConverter', 'CustomRestUplinkConverter']) {
      const config = loadRestConfig({
        mapping: [
          {
            converter: {
              type: 'custom',
              extension,
              deviceInfo: { deviceNameExpression: 'Meter' },
              extensionConfig: [
                { key: 'count', datatype: 'int', fromByte: 0, toByte: 2, byteorder: 'little', signed: false },
                { key: 'delta', datatype: 'int', fromByte: 2, toByte: 3, signed: true, multiplier: 0.5 },
                { key: 'tag', datatype: 'string', fromByte: 3, toByte: 5 },
              ],
            },
          },
        ],
      });
      const converter = await createConverter(config.mapping[0]!.converter, dir);
      expect(converter.name).toBe(extension);
      const request = { method: 'POST', path: '/', headers: {}, body: Buffer.alloc(0), contentType: '' };
      const out = await converter.convert({ data: '0x3412fe4f4b' }, request);
      expect(out).toMatchObject({ deviceName: 'Meter', deviceType: 'default' });
      expect(out.telemetry[0]!.values).toEqual({ count: 0x1234, delta: -1, tag: 'OK' });
    }
    expect(readdirSync(dir)).toEqual(['CustomRestUplinkConverter.mjs']);
    await expect(createConverter(loadRestConfigCustom('Nope'), dir)).rejects.toThrow(
      `No converter class 'Nope': put a .mjs or .js module exporting class Nope in ${dir}`,
    );
  });
});

function loadRestConfigCustom(extension: string) {
  const c = loadRestConfig({ mapping: [{ converter: { type: 'custom', extension } }] }).mapping[0]!.converter;
  if (c.type !== 'custom') throw new Error('custom expected');
  return c;
}

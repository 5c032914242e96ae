import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createDevice, expectTbError, okEmpty, okJson, useSharedPlatform } from './api-kit.ts';

/** JSON nested `levels` deep: {"a":{"a":...1...}} */
export function nested(levels: number): string {
  return '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
}

describe('bounds on every input, checked before the work', () => {
  const platform = useSharedPlatform();

  async function setup() {
    const p = platform();
    const token = await p.login();
    const device = await createDevice(p, token, { name: `bounds-${randomUUID().slice(0, 8)}` });
    return { p, token, device, base: `/api/plugins/telemetry/DEVICE/${device.id.id}` };
  }

  const post = (token: string, body: string, contentType = 'application/json') => ({
    method: 'POST',
    token,
    headers: { 'content-type': contentType },
    body,
  });

  it('answers JSON nested 4,500+ levels with 400 in telemetry, attributes, additionalInfo and rule chains', async () => {
    const { p, token, base, device } = await setup();
    const deep = nested(4_600);
    const cases: [string, string][] = [
      [`${base}/timeseries/ANY`, `{"t":${deep}}`],
      [`${base}/timeseries/ANY`, deep],
      [`${base}/SERVER_SCOPE`, `{"a":${deep}}`],
      [`${base}/attributes/SHARED_SCOPE`, `{"a":${deep}}`],
      ['/api/device', `{"name":"deep","additionalInfo":${deep}}`],
      ['/api/customer', `{"title":"deep","additionalInfo":${deep}}`],
      [`/api/ruleChain/${randomUUID()}/metadata`, `{"nodes":[${deep}],"connections":[]}`],
      ['/api/auth/login', deep],
    ];
    for (const [path, body] of cases) {
      await expectTbError(await p.http(path, post(token, body)), 400, 31, /nested deeper than 64 levels/);
    }
    // the device HTTP API too
    const accessToken = `tok-deep-${device.id.id.slice(0, 8)}`;
    await createDevice(p, token, { name: `http-${accessToken}` }, accessToken);
    for (const path of [`/api/v1/${accessToken}/telemetry`, `/api/v1/${accessToken}/attributes`]) {
      const res = await p.http(path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"t":${deep}}`,
      });
      await expectTbError(res, 400, 31, /nested deeper than 64 levels/);
    }
    // 64 levels are fine, and the server still serves
    await okEmpty(p.http(`${base}/timeseries/ANY`, post(token, `{"t":${nested(62)}}`)));
    const stored = await okJson<Record<string, { value: string }[]>>(
      p.http(`${base}/values/timeseries?keys=t`, { token }),
    );
    expect(stored.t![0]!.value).toContain('"a"');
    expect((await p.http(`/api/device/${device.id.id}`, { token })).status).toBe(200);
  });

  it('refuses page and pageSize beyond what the store can represent, naming the parameter', async () => {
    const { p, token } = await setup();
    for (const query of [
      'page=1000000000000000&pageSize=10000',
      'page=1e300&pageSize=10',
      'page=2147483648&pageSize=10',
      'page=0&pageSize=10001',
      'page=-1&pageSize=10',
    ]) {
      const res = await p.http(`/api/tenant/devices?${query}`, { token });
      const name = query.includes('pageSize=1000') && !query.includes('page=1') ? 'pageSize' : 'page';
      const error = await expectTbError(res, 400, 31);
      expect(error.message, query).toMatch(new RegExp(`'querystring\\.${name}'`));
    }
    for (const path of ['/api/customers', '/api/deviceProfiles', '/api/users']) {
      await expectTbError(
        await p.http(`${path}?page=1e300&pageSize=10`, { token }),
        400,
        31,
        "'querystring.page'",
      );
    }
    await okJson(p.http('/api/tenant/devices?page=2147483647&pageSize=10000', { token }));
  });

  it('refuses timestamps and ranges the store cannot keep', async () => {
    const { p, token, base } = await setup();
    await expectTbError(
      await p.http(`/api/tableView/${randomUUID()}/report`, post(token, '{"rangeEndTs": 9e18}')),
      400,
      30,
      'rangeEndTs',
    );
    await expectTbError(
      await p.http(`${base}/values/timeseries?keys=t&startTs=0&endTs=9000000000000000000`, { token }),
      400,
      31,
      'endTs',
    );
    for (const body of [
      '{"ts": null, "values": {"t": 1}}',
      '{"ts": "", "values": {"t": 1}}',
      '{"ts": 1e300, "values": {"t": 1}}',
      '{"ts": -5, "values": {"t": 1}}',
      '{"ts": true, "values": {"t": 1}}',
      '[{"ts": 1700000000000, "values": {"t": 1}}, {"ts": null, "values": {"t": 2}}]',
    ]) {
      await expectTbError(await p.http(`${base}/timeseries/ANY`, post(token, body)), 400, 30, /ts must be/);
    }
    // nothing of those was stored, not even at 1970
    const stored = await okJson<Record<string, unknown[]>>(
      p.http(`${base}/values/timeseries?keys=t&startTs=0&endTs=4000000000000`, { token }),
    );
    expect(stored).toEqual({});
    await okEmpty(
      p.http(`${base}/timeseries/ANY`, post(token, '{"ts": "1700000000000", "values": {"t": 3}}')),
    );
  });

  it('refuses a UTF-16 body with 415 instead of reading it as UTF-8', async () => {
    const { p, token, base } = await setup();
    const body = Buffer.from('{"t": 1}', 'utf16le');
    const res = await p.http(`${base}/timeseries/ANY`, {
      method: 'POST',
      token,
      headers: { 'content-type': 'application/json; charset=utf-16' },
      body,
    });
    await expectTbError(res, 415, 31, /charset 'utf-16'/);
    await okEmpty(
      p.http(`${base}/timeseries/ANY`, post(token, '{"t": 2}', 'application/json; charset=UTF-8')),
    );
  });

  it('keeps device, profile, customer and key names non-blank, trimmed and at most 255 characters', async () => {
    const { p, token, base } = await setup();
    for (const name of ['', '   ', '\t\n', 'x'.repeat(256)]) {
      await expectTbError(await p.http('/api/device', { method: 'POST', token, json: { name } }), 400, 30);
      await expectTbError(
        await p.http('/api/customer', { method: 'POST', token, json: { title: name } }),
        400,
        30,
      );
      await expectTbError(
        await p.http('/api/deviceProfile', { method: 'POST', token, json: { name } }),
        400,
        30,
      );
    }
    const padded = await okJson<{ name: string }>(
      p.http('/api/device', {
        method: 'POST',
        token,
        json: { name: `  padded-${randomUUID().slice(0, 6)}  ` },
      }),
    );
    expect(padded.name).toMatch(/^padded-\w+$/);
    for (const body of ['{"": 1}', '{"  ": 1}', `{"${'k'.repeat(256)}": 1}`]) {
      await expectTbError(await p.http(`${base}/timeseries/ANY`, post(token, body)), 400, 30, /key/);
      await expectTbError(await p.http(`${base}/SERVER_SCOPE`, post(token, body)), 400, 30, /key/);
    }
  });
});

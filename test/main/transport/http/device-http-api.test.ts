import { describe, expect, it } from 'vitest';
import { expectTbError, okJson, useSharedPlatform } from '../../api/api-kit.ts';
import { attributes, newDevice, saveShared, deleteShared, timeseries, type Api } from '../mqtt/mqtt-kit.ts';

/** A whole minute an hour ago: history timestamps no "now" entry can collide with. */
const BASE = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
const SHORT_TIMEOUT_MS = 300;

/**
 * Repeats `act` until `poll` answers: a long poll registers on arrival, which the test cannot see, so
 * the update is made again until the poll has taken one (each repeat is the same update).
 */
async function actUntilAnswered(poll: Promise<Response>, act: () => Promise<void>): Promise<Response> {
  let answered: Response | undefined;
  void poll.then((r) => (answered = r));
  while (!answered) {
    await act();
    await Promise.race([poll, new Promise((r) => setTimeout(r, 50))]);
  }
  return answered;
}

describe('device HTTP API (/api/v1/{token}/...)', () => {
  const platform = useSharedPlatform({ httpRequestTimeoutMs: 1_500 });
  let counter = 0;
  let login: string | undefined;

  async function setup() {
    const p = platform();
    login ??= await p.login();
    const api: Api = { p, token: login };
    const device = await newDevice(api, `http-dev-${++counter}`);
    const v1 = (path: string, init: RequestInit & { json?: unknown } = {}) => {
      const { json, ...rest } = init;
      return fetch(`${p.urls.http}/api/v1/${device.accessToken}${path}`, {
        ...rest,
        headers: json !== undefined ? { 'content-type': 'application/json' } : rest.headers,
        body: json !== undefined ? JSON.stringify(json) : rest.body,
      });
    };
    return { api, p, device, v1 };
  }

  it('stores telemetry in every shape ThingsBoard accepts, readable once answered 200', async () => {
    const { api, device, v1 } = await setup();
    const res = await v1('/telemetry', { method: 'POST', json: { temperature: 21.5, mode: 'auto' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect(
      (await v1('/telemetry', { method: 'POST', json: { ts: BASE, values: { pressure: 1013 } } })).status,
    ).toBe(200);
    const arr = [
      { ts: BASE + 1, values: { pressure: 1014 } },
      { ts: BASE + 2, values: { pressure: 1015 } },
    ];
    expect((await v1('/telemetry', { method: 'POST', json: arr })).status).toBe(200);
    const latest = await timeseries(api, device.id.id);
    expect(latest.temperature![0]!.value).toBe(21.5);
    expect(latest.mode![0]!.value).toBe('auto');
    const history = await timeseries(api, device.id.id, {
      keys: 'pressure',
      startTs: BASE,
      endTs: BASE + 10,
    });
    expect(history.pressure!.map((e) => e.value).sort()).toEqual([1013, 1014, 1015]);
  });

  it('takes the JSON body whatever content type the device sends (curl -d: form-urlencoded)', async () => {
    const { api, device, v1 } = await setup();
    const res = await v1('/telemetry', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '{"curlValue":7}',
    });
    expect(res.status).toBe(200);
    expect((await timeseries(api, device.id.id)).curlValue![0]!.value).toBe(7);
  });

  it('posts client attributes and reads client and shared ones back with clientKeys / sharedKeys', async () => {
    const { api, device, v1 } = await setup();
    expect((await v1('/attributes', { method: 'POST', json: { fw: '1.0', port: 8 } })).status).toBe(200);
    expect(await attributes(api, device.id.id, 'CLIENT_SCOPE')).toEqual({ fw: '1.0', port: 8 });
    await saveShared(api, device.id.id, { target: 22, mode: 'eco' });

    expect(await okJson(v1('/attributes'))).toEqual({
      client: { fw: '1.0', port: 8 },
      shared: { target: 22, mode: 'eco' },
    });
    expect(await okJson(v1('/attributes?clientKeys=fw&sharedKeys=mode'))).toEqual({
      client: { fw: '1.0' },
      shared: { mode: 'eco' },
    });
    expect(await okJson(v1('/attributes?sharedKeys=target'))).toEqual({ shared: { target: 22 } });
    // ThingsBoard leaves out a scope that has nothing to give.
    expect(await okJson(v1('/attributes?clientKeys=nothing'))).toEqual({});
  });

  it('long-polls shared attribute updates and deletions, and answers 408 when none comes in time', async () => {
    const { api, device, v1 } = await setup();
    const update = await actUntilAnswered(v1('/attributes/updates?timeout=5000'), () =>
      saveShared(api, device.id.id, { setpoint: 19 }),
    );
    expect(await okJson(update)).toEqual({ setpoint: 19 });

    const deletion = await actUntilAnswered(v1('/attributes/updates?timeout=5000'), () =>
      deleteShared(api, device.id.id, ['setpoint']),
    );
    expect(await okJson(deletion)).toEqual({ deleted: ['setpoint'] });

    const started = Date.now();
    await expectTbError(await v1(`/attributes/updates?timeout=${SHORT_TIMEOUT_MS}`), 408, 2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 20);
  });

  it('takes a server-side RPC through the /rpc long poll and answers it on /rpc/{id}', async () => {
    const { p, device, v1 } = await setup();
    // The call waits for a session; the poll that comes takes it.
    const call = p.http(`/api/rpc/twoway/${device.id.id}`, {
      method: 'POST',
      token: login,
      json: { method: 'setGpio', params: { pin: 4, value: 1 }, timeout: 5000 },
    });
    const request = await okJson<{ id: number; method: string; params: unknown }>(v1('/rpc?timeout=5000'));
    expect(request).toEqual({ id: expect.any(Number), method: 'setGpio', params: { pin: 4, value: 1 } });
    const answer = await v1(`/rpc/${request.id}`, { method: 'POST', json: { pin: 4, value: 1, ok: true } });
    expect(answer.status).toBe(200);
    expect(await okJson(call)).toEqual({ pin: 4, value: 1, ok: true });

    await expectTbError(await v1(`/rpc?timeout=${SHORT_TIMEOUT_MS}`), 408, 2);
    await expectTbError(await v1('/rpc/abc', { method: 'POST', json: {} }), 400, 31, 'integer');
  });

  it('answers the client-side getSessionLimits RPC itself, and 408 for an RPC no rule answers', async () => {
    const { v1 } = await setup();
    const limits = await okJson(
      v1('/rpc', { method: 'POST', json: { method: 'getSessionLimits', params: { timeout: 5000 } } }),
    );
    expect(limits).toEqual({
      maxPayloadSize: 65536,
      maxInflightMessages: 100,
      rateLimits: { messages: null, telemetryMessages: null, telemetryDataPoints: null },
    });
    await expectTbError(
      await v1('/rpc', { method: 'POST', json: { method: 'getTime', params: {} } }),
      408,
      2,
    );
    await expectTbError(await v1('/rpc', { method: 'POST', json: { params: {} } }), 400, 31, 'method');
  });

  it('stores a claim a customer can then use', async () => {
    const { p, device, v1 } = await setup();
    expect(
      (await v1('/claim', { method: 'POST', json: { secretKey: 'abc', durationMs: 60000 } })).status,
    ).toBe(200);
    const customerLogin = await p.login('customer@thingsboard.org', 'customer');
    const claimed = await okJson<{ response: string }>(
      p.http(`/api/customer/device/${encodeURIComponent(device.name)}/claim`, {
        method: 'POST',
        token: customerLogin,
        json: { secretKey: 'abc' },
      }),
    );
    expect(claimed.response).toBe('SUCCESS');
  });

  it('answers 401 for an unknown token on every device path, before reading the body', async () => {
    const p = platform();
    const base = `${p.urls.http}/api/v1/no-such-token`;
    const json = { 'content-type': 'application/json' };
    const calls: [string, RequestInit][] = [
      ['/telemetry', { method: 'POST', headers: json, body: '{"a":1}' }],
      ['/telemetry', { method: 'POST', headers: json, body: 'not json' }],
      ['/attributes', { method: 'POST', headers: json, body: '{"a":1}' }],
      ['/attributes', { method: 'GET' }],
      ['/attributes/updates?timeout=100', { method: 'GET' }],
      ['/rpc?timeout=100', { method: 'GET' }],
      ['/rpc/1', { method: 'POST', headers: json, body: '{}' }],
      ['/rpc', { method: 'POST', headers: json, body: '{"method":"getSessionLimits"}' }],
      ['/claim', { method: 'POST', headers: json, body: '{}' }],
    ];
    for (const [path, init] of calls) {
      const res = await fetch(`${base}${path}`, init);
      await expectTbError(res, 401, 10);
    }
  });

  it('answers 400 with ThingsBoard error JSON for bad JSON and payloads that are not telemetry', async () => {
    const { v1 } = await setup();
    const send = (path: string, body: string) =>
      v1(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await expectTbError(await send('/telemetry', '{"a":'), 400, 31, 'Invalid JSON');
    await expectTbError(await send('/telemetry', '"text"'), 400, 31);
    await expectTbError(await send('/attributes', '[1,2]'), 400, 31);
    await expectTbError(await send('/rpc', 'nope'), 400, 31, 'Invalid JSON');
    await expectTbError(await send('/claim', '[]'), 400, 31);
    await expectTbError(await v1('/rpc?timeout=-1'), 400, 31, 'timeout');
  });
});

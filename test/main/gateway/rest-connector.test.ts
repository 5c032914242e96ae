import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpsRequest, createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureSelfSignedCertificate } from '../../../main/gateway/connectors/rest/certificates.ts';
import { loadRestConfig } from '../../../main/gateway/connectors/rest/config.ts';
import { GatewayRuntime } from '../../../main/gateway/gateway-runtime.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import {
  clientAttributeStored,
  closedPort,
  outgoingDone,
  startGateway,
  startGatewayPlatform,
  startTarget,
} from './gateway-kit.ts';

const THROWING_CONVERTER = `
export class ThrowingConverter {
  constructor(config) { this.device = config.deviceInfo.deviceNameExpression; }
  convert(data) {
    if (data.fail) throw new Error('cannot decode frame 0x' + data.fail);
    return { deviceName: this.device, telemetry: [{ v: Number(data.v) }] };
  }
}
`;

/** POST /d with {"name", "a"}: how the outgoing-call tests make their devices known to the gateway. */
const DEVICE_ENDPOINT = {
  endpoint: '/d',
  HTTPMethods: ['POST'],
  converter: {
    deviceInfo: { deviceNameExpression: '${name}' },
    attributes: [{ key: 'a', value: '${a}' }],
  },
};

describe('incoming requests', () => {
  it('answers bad input with a status a client can act on, and the MQTT session lives on', async () => {
    const platform = await startGatewayPlatform();
    const dataDir = tempDir();
    mkdirSync(join(dataDir, 'converters'));
    writeFileSync(join(dataDir, 'converters', 'ThrowingConverter.mjs'), THROWING_CONVERTER);
    const gw = await startGateway(
      platform,
      {
        server: { port: 0 },
        mapping: [
          {
            endpoint: '/secure',
            HTTPMethods: ['POST'],
            security: { type: 'basic', username: 'alice', password: 's3cret' },
            converter: {
              deviceInfo: { deviceNameExpression: '${name}' },
              timeseries: [{ key: 'temperature', value: '${temp}', type: 'double' }],
            },
          },
          {
            endpoint: '/frames',
            HTTPMethods: ['POST'],
            security: { type: 'anonymous' },
            converter: {
              type: 'custom',
              extension: 'ThrowingConverter',
              deviceInfo: { deviceNameExpression: 'Frame Device' },
            },
          },
          {
            endpoint: '/fixed',
            HTTPMethods: ['POST'],
            response: { successResponse: 'accepted', unsuccessfulResponse: 'rejected' },
            converter: {
              deviceInfo: { deviceNameExpression: '${name}' },
              attributes: [{ key: 'a', value: '${a}' }],
            },
          },
        ],
      },
      { dataDir, bodyLimitBytes: 1024 },
    );
    const alice: [string, string] = ['alice', 's3cret'];

    let res = await gw.request('/secure', { method: 'POST', json: { name: 'S1', temp: 20 } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="Test connector", charset="UTF-8"');
    expect(await res.json()).toEqual({
      status: 401,
      error: 'Wrong or missing credentials (HTTP basic authentication)',
    });
    res = await gw.request('/secure', {
      method: 'POST',
      json: { name: 'S1', temp: 20 },
      auth: ['alice', 'wrong'],
    });
    expect(res.status).toBe(401);
    res = await gw.request('/secure', { method: 'POST', json: { name: 'S1', temp: 20 }, auth: alice });
    expect(res.status).toBe(200);

    res = await gw.request('/secure', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name": "S1", "temp": ',
      auth: alice,
    });
    expect(res.status).toBe(400);
    const malformed = (await res.json()) as { status: number; error: string };
    expect(malformed.status).toBe(400);
    expect(malformed.error).toMatch(/^Malformed JSON body: /);

    res = await gw.request('/secure', { auth: alice });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect((await gw.request('/nowhere', { method: 'POST', json: {} })).status).toBe(404);

    res = await gw.request('/secure', {
      method: 'POST',
      json: { name: 'S1', blob: 'x'.repeat(2000) },
      auth: alice,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: string }).error).toBe(
      'Request body is too large (limit 1024 bytes)',
    );

    res = await gw.request('/secure', { method: 'POST', auth: alice });
    expect(res.status).toBe(415); // nothing to convert
    res = await gw.request('/secure', { method: 'POST', json: { temp: 1 }, auth: alice });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe(
      "Device name expression '${name}' found nothing in the request",
    );

    res = await gw.request('/frames', { method: 'POST', json: { fail: 'ff' } });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      status: 500,
      error: 'Converter ThrowingConverter failed: cannot decode frame 0xff',
    });
    expect(gw.logs).toContain(
      'error: [Test connector] POST /frames: Converter ThrowingConverter failed: cannot decode frame 0xff',
    );
    // the MQTT session is unaffected: the same gateway goes on storing data
    expect(gw.runtime.gateway.connected).toBe(true);
    res = await gw.request('/frames', { method: 'POST', json: { v: '5' } });
    expect(res.status).toBe(200);
    expect((await platform.latest('Frame Device', ['v'])).v![0]!.value).toBe(5);
    expect(gw.runtime.gateway.stats.reconnects).toBe(0); // the same session, never reconnected

    res = await gw.request('/fixed', { method: 'POST', json: { name: 'F1', a: 'x' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('accepted');
    res = await gw.request('/fixed', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('rejected');

    const log = gw.runtime.connector.requestLog();
    expect(log[0]).toMatchObject({
      method: 'POST',
      path: '/fixed',
      status: 400,
      device: null,
      datapoints: 0,
    });
    expect(log.find((e) => e.status === 500)).toMatchObject({
      path: '/frames',
      error: expect.stringMatching(/ThrowingConverter/),
    });
    expect(gw.runtime.connector.counters).toMatchObject({ requests: log.length, datapoints: 3 });
  });

  it('merges path variables, query parameters and multipart fields, typed; file parts are ignored', async () => {
    const tz = process.env.TZ;
    process.env.TZ = 'UTC';
    onTestFinished(() => {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    });
    const platform = await startGatewayPlatform();
    const gw = await startGateway(platform, {
      server: { port: 0 },
      mapping: [
        {
          endpoint: '/sites/{site}/devices/{devname}',
          HTTPMethods: ['POST', 'GET'],
          converter: {
            deviceInfo: { deviceNameExpression: '${site}-${devname}', deviceProfileExpression: '${profile}' },
            attributes: [
              { key: '${kind}Model', value: '${model}' },
              { key: 'online', value: '${online}', type: 'boolean' },
            ],
            timeseries: [
              { key: 'count', value: '${count}', type: 'integer', tsField: '${when}', dayfirst: true },
              { key: 'temperature', value: '${reading.value}', type: 'double' },
              { key: 'pair', value: '${count}/${model}' },
            ],
          },
        },
      ],
    });
    const form = new FormData();
    form.append('count', '41');
    form.append('online', 'true');
    form.append('model', 'M-9');
    form.append('when', '10.11.25 10:35:12.123');
    form.append('photo', new Blob([new Uint8Array([1, 2, 3])]), 'photo.jpg');
    let res = await gw.request('/sites/north/devices/pump%201?profile=pumps&kind=main', {
      method: 'POST',
      body: form,
    });
    expect(res.status).toBe(200);
    const device = await platform.device('north-pump 1');
    expect(device.type).toBe('pumps');
    const values = await platform.latest('north-pump 1', ['count', 'pair']);
    expect(values.count).toEqual([{ ts: 1762770912123, value: 41 }]); // dayfirst: 10 November
    expect(values.pair![0]!.value).toBe('41/M-9');
    expect(await platform.attributes('north-pump 1', 'CLIENT_SCOPE')).toMatchObject({
      mainModel: 'M-9',
      online: true,
    });
    expect(gw.logs).toContain(
      "info: [Test connector] POST /sites/north/devices/pump%201: file part 'photo' (photo.jpg, 3 bytes) ignored",
    );
    expect(gw.runtime.connector.requestLog(1)[0]).toMatchObject({
      device: 'north-pump 1',
      datapoints: 4,
      warnings: [
        "file part 'photo' (photo.jpg, 3 bytes) ignored",
        "temperature: '${reading.value}' found nothing in the request (not sent)",
      ],
    });

    // a JSONPath value; a list body: its first element
    res = await gw.request('/sites/south/devices/d2', {
      method: 'POST',
      json: [{ reading: { value: '19.75' }, count: 3, ts: 1_700_000_000_000 }, { ignored: true }],
    });
    expect(res.status).toBe(200);
    expect((await platform.latest('south-d2', ['temperature'])).temperature).toEqual([
      { ts: 1_700_000_000_000, value: 19.75 },
    ]);
    expect((await platform.device('south-d2')).type).toBe('default');

    // GET with query parameters only
    res = await gw.request('/sites/west/devices/d3?count=7');
    expect(res.status).toBe(200);
    expect((await platform.latest('west-d3', ['count'])).count![0]!.value).toBe(7);
  });

  it('serves HTTPS with a generated self-signed certificate', async () => {
    const platform = await startGatewayPlatform();
    const pair = await ensureSelfSignedCertificate(tempDir());
    const gw = await startGateway(platform, {
      server: { port: 0, SSL: true, security: pair },
      mapping: [
        {
          endpoint: '/t',
          HTTPMethods: ['POST'],
          converter: {
            deviceInfo: { deviceNameExpression: 'TLS' },
            timeseries: [{ key: 'v', value: '${v}', type: 'integer' }],
          },
        },
      ],
    });
    expect(gw.baseUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(
        `${gw.baseUrl}/t`,
        { method: 'POST', ca: readFileSync(pair.cert), headers: { 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"v": 3}');
    });
    expect(status).toBe(200);
    expect((await platform.latest('TLS', ['v'])).v![0]!.value).toBe(3);
    expect(gw.runtime.connector.endpoints()[0]!.curl).toBe(
      `curl -k -X POST ${gw.baseUrl}/t -H 'Content-Type: application/json' -d '{"v":42}'`,
    );
  });
});

describe('remote response', () => {
  it('waits for the shared attribute of the same device, never a stale one, without blocking others', async () => {
    const platform = await startGatewayPlatform();
    const gw = await startGateway(platform, {
      server: { port: 0 },
      mapping: [
        {
          endpoint: '/ask',
          HTTPMethods: ['POST'],
          response: { response: true, timeout: 0.6, responseAttribute: 'answer' },
          converter: {
            deviceInfo: { deviceNameExpression: '${name}' },
            timeseries: [{ key: 'q', value: '${q}' }],
          },
        },
      ],
    });
    // D1's request waits; D2's request is answered while D1's still waits
    const asked1 = clientAttributeStored(platform, 'responseExpected');
    const first = gw.request('/ask', { method: 'POST', json: { name: 'D1', q: 'one' } });
    const stored1 = await asked1;
    expect(stored1.values).toEqual({ responseExpected: true });
    const asked2 = clientAttributeStored(platform, 'responseExpected');
    const second = gw.request('/ask', { method: 'POST', json: { name: 'D2', q: 'two' } });
    await asked2;
    await platform.setShared('D2', { answer: 'for D2' });
    const r2 = await second;
    expect(r2.status).toBe(200);
    expect(await r2.text()).toBe('for D2');
    await platform.setShared('D1', { answer: { ok: 1 } });
    const r1 = await first;
    expect(r1.status).toBe(200);
    expect(r1.headers.get('content-type')).toBe('application/json');
    expect(await r1.json()).toEqual({ ok: 1 });

    // D1 has answer = {ok: 1} now: a new request must not get that stale value, it times out
    const started = performance.now();
    const r3 = await gw.request('/ask', { method: 'POST', json: { name: 'D1', q: 'three' } });
    expect(r3.status).toBe(408);
    expect(((await r3.json()) as { error: string }).error).toBe(
      "No shared attribute 'answer' arrived for device 'D1' within 0.6 s",
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(550);
    // the data of a timed-out request was stored all the same
    expect((await platform.latest('D1', ['q'])).q![0]!.value).toBe('three');
  });
});

describe('outgoing calls', () => {
  it('RPC: tries, backoff, timeouts, no-reply rules, built-in get / set; the answer in compat shape', async () => {
    const platform = await startGatewayPlatform();
    let flaky = 0;
    const target = await startTarget((r, res) => {
      if (r.url === '/flaky' && ++flaky < 3) {
        res.writeHead(503, 'Busy');
        res.end();
      } else if (r.url === '/hang') {
        // never answers: the gateway's responseTimeout ends it
      } else if (r.url === '/missing') {
        res.writeHead(404, 'Not Found');
        res.end('nope');
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`${r.method} ${r.url} ${r.body}`);
      }
    });
    const unreachable = await closedPort();
    const rule = (methodFilter: string, url: string, extra: Record<string, unknown> = {}) => ({
      deviceNameFilter: 'R.*',
      methodFilter,
      requestUrlExpression: url,
      responseTimeout: 5,
      HTTPMethod: 'POST',
      valueExpression: '${params}',
      timeout: 1,
      tries: 3,
      ...extra,
    });
    const gw = await startGateway(platform, {
      server: { port: 0 },
      mapping: [DEVICE_ENDPOINT],
      requestsMapping: {
        serverSideRpc: [
          rule('unreachable', `http://127.0.0.1:${unreachable}/x`),
          rule('flaky', `${target.url}/flaky`),
          rule('slow', `${target.url}/hang`, { responseTimeout: 0.3, tries: 1 }),
          rule('missing', `${target.url}/missing`),
          rule('fire', `${target.url}/fire/\${deviceName}/\${methodName}/\${requestId}`, {
            responseTimeout: undefined,
          }),
          rule('temp', `${target.url}/temp?unit=\${params.unit}`, {
            valueExpression: '{"v": ${params.value}}',
          }),
        ],
      },
    });
    // devices get RPC through the gateway once it connected them
    expect((await gw.request('/d', { method: 'POST', json: { name: 'R1', a: 1 } })).status).toBe(200);

    const failed = outgoingDone(gw, (e) => e.trigger === 'unreachable');
    const down = await platform.rpc('R1', 'unreachable', { x: 1 });
    expect(down.status).toBe(200);
    expect(down.body).toMatchObject({ code: 502, error: expect.stringMatching(/ECONNREFUSED/) });
    const entry = await failed;
    expect(entry.tries).toHaveLength(3);
    expect(entry.tries.every((t) => t.status === null && /ECONNREFUSED/.test(t.error ?? ''))).toBe(true);
    expect(entry.tries[2]!.time - entry.tries[0]!.time).toBeGreaterThanOrEqual(300); // 100 + 200 ms backoff
    expect(
      gw.logs.some((l) =>
        /rpc unreachable for R1: POST http:\/\/127\.0\.0\.1:\d+\/x failed after 3 tries/.test(l),
      ),
    ).toBe(true);

    const flakyRpc = await platform.rpc('R1', 'flaky', { y: 2 });
    expect(flakyRpc.body).toEqual({ result: 'POST /flaky {"y":2}' });
    const log = gw.runtime.connector.outgoingLog();
    expect(log[0]!.tries.map((t) => t.status)).toEqual([503, 503, 200]);

    expect((await platform.rpc('R1', 'slow', {})).body).toEqual({ error: 'Timeout', code: 408 });
    expect((await platform.rpc('R1', 'missing', {})).body).toEqual({ error: 'Not Found', code: 404 });
    expect((await platform.rpc('R1', 'temp', { unit: 'C', value: 21.5 })).body).toEqual({
      result: 'POST /temp?unit=C {"v": 21.5}',
    });

    // no reply: the platform hears at once; the call still goes out, with ${requestId} substituted
    const fired = target.next();
    const fire = await platform.rpc('R1', 'fire', { z: 3 });
    expect(fire.body).toEqual({ success: true });
    const got = await fired;
    expect(got.url).toMatch(/^\/fire\/R1\/fire\/\d+$/);
    expect(got.body).toBe('{"z":3}');

    // built-in set / get: params "key=value;..."
    const set = await platform.rpc(
      'R1',
      'set',
      `requestUrlExpression=${target.url}/builtin/\${deviceName};value={"on":true};HTTPMethod=PUT`,
    );
    expect(set.body).toEqual({ result: 'PUT /builtin/R1 {"on":true}' });
    const get = await platform.rpc('R1', 'get', `requestUrlExpression=${target.url}/builtin?k=v;timeout=1`);
    expect(get.body).toEqual({ result: 'GET /builtin?k=v ' });

    // a method no rule takes is answered too (the platform does not wait in vain)
    expect((await platform.rpc('R1', 'nobody', {})).body).toEqual({
      error: "No serverSideRpc entry matches method 'nobody' of device 'R1'",
      code: 404,
    });
  });

  it('attribute updates: filters, URL and value expressions, headers, basic auth, redirects, SSLVerify', async () => {
    const platform = await startGatewayPlatform();
    const target = await startTarget((r, res) => {
      if (r.url.startsWith('/moved')) {
        res.writeHead(302, { location: '/final' });
        res.end();
      } else {
        res.writeHead(200);
        res.end('ok');
      }
    });
    const pair = await ensureSelfSignedCertificate(tempDir());
    const tls = createHttpsServer(
      { cert: readFileSync(pair.cert), key: readFileSync(pair.key) },
      (req, res) => {
        req.resume();
        res.writeHead(200);
        res.end('tls ok');
      },
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => tls.close(() => resolve())));
    const tlsUrl = `https://127.0.0.1:${(tls.address() as AddressInfo).port}`;
    const update = (extra: Record<string, unknown>) => ({
      HTTPMethod: 'PUT',
      httpHeaders: { 'Content-Type': 'application/json', 'X-Site': 'north' },
      security: { type: 'basic', username: 'bob', password: 'pw' },
      timeout: 1,
      tries: 1,
      valueExpression: '{"${attributeKey}": ${attributeValue}}',
      ...extra,
    });
    const gw = await startGateway(platform, {
      server: { port: 0 },
      mapping: [DEVICE_ENDPOINT],
      requestsMapping: {
        attributeUpdates: [
          update({
            deviceNameFilter: 'Valve.*',
            attributeFilter: 'open|level',
            requestUrlExpression: `${target.url}/valves/\${deviceName}/\${attributeKey}`,
          }),
          update({
            deviceNameFilter: 'Valve.*',
            attributeFilter: 'redirected',
            requestUrlExpression: `${target.url}/moved/a`,
            allowRedirects: true,
          }),
          update({
            deviceNameFilter: 'Valve.*',
            attributeFilter: 'stay',
            requestUrlExpression: `${target.url}/moved/b`,
            allowRedirects: false,
          }),
          update({
            deviceNameFilter: 'Valve.*',
            attributeFilter: 'tls',
            requestUrlExpression: `${tlsUrl}/x`,
            SSLVerify: false,
          }),
          update({
            deviceNameFilter: 'Valve.*',
            attributeFilter: 'tlsStrict',
            requestUrlExpression: `${tlsUrl}/y`,
            SSLVerify: true,
          }),
        ],
      },
    });
    expect((await gw.request('/d', { method: 'POST', json: { name: 'Valve 1', a: 1 } })).status).toBe(200);
    expect((await gw.request('/d', { method: 'POST', json: { name: 'Pump 1', a: 1 } })).status).toBe(200);

    const sent = target.next();
    await platform.setShared('Pump 1', { open: true }); // filtered out by deviceNameFilter
    await platform.setShared('Valve 1', { open: true, ignored: 1 });
    const r = await sent;
    expect(r.method).toBe('PUT');
    expect(r.url).toBe('/valves/Valve%201/open');
    expect(r.headers['x-site']).toBe('north');
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('bob:pw').toString('base64')}`);
    expect(JSON.parse(r.body)).toEqual({ open: true });
    expect(target.received).toHaveLength(1);

    const followed = outgoingDone(gw, (e) => e.trigger === 'redirected');
    await platform.setShared('Valve 1', { redirected: 1 });
    expect(await followed).toMatchObject({ state: 'ok', status: 200 });
    expect(target.received.map((x) => x.url)).toEqual(['/valves/Valve%201/open', '/moved/a', '/final']);

    const stayed = outgoingDone(gw, (e) => e.trigger === 'stay');
    await platform.setShared('Valve 1', { stay: 1 });
    expect(await stayed).toMatchObject({ state: 'failed', status: 302 });

    const insecure = outgoingDone(gw, (e) => e.trigger === 'tls');
    await platform.setShared('Valve 1', { tls: 1 });
    expect(await insecure).toMatchObject({ state: 'ok', status: 200 });
    const strict = outgoingDone(gw, (e) => e.trigger === 'tlsStrict');
    await platform.setShared('Valve 1', { tlsStrict: 1 });
    expect(await strict).toMatchObject({
      state: 'failed',
      error: expect.stringMatching(/self-signed|certificate/i),
    });
  });
});

describe('attribute requests', () => {
  it('answers 408 when the platform does not answer in time (a bare MQTT broker here)', async () => {
    // any broker speaks the gateway MQTT API's transport; this one never answers attribute requests
    const broker = await Aedes.createBroker();
    const server = createNetServer((socket) => broker.handle(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });
    const runtime = await GatewayRuntime.start({
      name: 'bare',
      platformUrl: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
      token: 'any',
      dataDir: tempDir(),
      config: loadRestConfig({
        server: { port: 0 },
        requestsMapping: {
          attributeRequests: [
            { endpoint: '/attrs', type: 'client', timeout: 0.3, attributeNameExpression: '${keys}' },
          ],
        },
      }),
    });
    onTestFinished(() => runtime.stop());
    const request = new Promise<{ topic: string; payload: unknown }>((resolve) =>
      broker.on('publish', (packet, client) => {
        if (client && packet.topic === 'v1/gateway/attributes/request')
          resolve({ topic: packet.topic, payload: JSON.parse(packet.payload.toString()) as unknown });
      }),
    );
    const res = await fetch(`${runtime.connector.baseUrl}/attrs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deviceName: 'X1', keys: 'a, b' }),
    });
    expect(res.status).toBe(408);
    expect(await res.json()).toEqual({
      status: 408,
      error: 'The platform did not answer the attribute request within 0.3 s',
    });
    expect((await request).payload).toEqual({ id: 1, device: 'X1', client: true, keys: ['a', 'b'] });
    const missing = await fetch(`${runtime.connector.baseUrl}/attrs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ deviceName: 'X1' }),
    });
    expect(missing.status).toBe(400);
  });
});

describe('gateway session', () => {
  it('reconnects when the platform comes back, and what waited for it is stored then', async () => {
    const dataDir = tempDir();
    const first = await startTestPlatform({ dataDir });
    const mqttPort = Number(new URL(first.urls.mqtt).port);
    const token = await first.login();
    const created = await first.http('/api/device', {
      method: 'POST',
      token,
      json: { name: 'GW', additionalInfo: { gateway: true } },
    });
    const id = ((await created.json()) as { id: { id: string } }).id.id;
    const creds = (await (await first.http(`/api/device/${id}/credentials`, { token })).json()) as {
      credentialsId: string;
    };
    const runtime = await GatewayRuntime.start({
      name: 'reconnecting',
      platformUrl: first.urls.mqtt,
      token: creds.credentialsId,
      dataDir,
      config: loadRestConfig({
        server: { port: 0 },
        mapping: [
          {
            endpoint: '/d',
            HTTPMethods: ['POST'],
            converter: {
              deviceInfo: { deviceNameExpression: '${name}' },
              timeseries: [{ key: 'v', value: '${v}', type: 'integer' }],
            },
          },
        ],
      }),
    });
    onTestFinished(() => runtime.stop());
    const post = (v: number) =>
      fetch(`${runtime.connector.baseUrl}/d`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'R', v }),
      });
    expect((await post(1)).status).toBe(200);

    const lost = new Promise<void>((resolve) => runtime.gateway.once('disconnected', () => resolve()));
    await first.stop();
    await lost;
    expect(runtime.gateway.connected).toBe(false);
    const waiting = post(2); // acknowledged once the platform is back
    const back = new Promise<void>((resolve) => runtime.gateway.once('connected', () => resolve()));
    const second = await startTestPlatform({ dataDir, mqttPort });
    await back;
    expect((await waiting).status).toBe(200);
    expect((await post(3)).status).toBe(200);
    const row = second.services.devices.findRowByName('R')!;
    const history = second.services.telemetry.timeseries(row, {
      keys: ['v'],
      startTs: 0,
      endTs: Date.now() + 1000,
      strict: true,
    });
    expect(history.v!.map((p) => p.value).sort()).toEqual([1, 2, 3]);
  });
});

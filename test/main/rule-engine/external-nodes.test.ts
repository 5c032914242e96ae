import { once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { describe, expect, it, onTestFinished } from 'vitest';
import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { nodeHarness, telemetryMsg } from './node-kit.ts';

const relationsOf = (out: { relation: string }[]) => out.map((o) => o.relation);

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on a free port; `answer` decides each response. */
async function httpServer(
  answer: (req: Seen) => { status: number; body?: string; headers?: Record<string, string>; hang?: boolean },
) {
  const seen: Seen[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const s: Seen = { method: req.method!, url: req.url!, headers: req.headers, body };
      seen.push(s);
      const a = answer(s);
      if (a.hang) return;
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      res.end(a.body ?? '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe('REST API call node', () => {
  it('calls with the message body and headers from patterns; the answer becomes the message', async () => {
    const srv = await httpServer(() => ({
      status: 201,
      body: '{"stored":true}',
      headers: { 'x-trace': 'abc' },
    }));
    const h = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `${srv.url}/api/\${deviceName}?x=$[temperature]`,
      requestMethod: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Device': '${deviceName}' },
      credentials: { type: 'basic', username: 'u', password: 'p' },
    });
    const d = await h.device('r1');
    const r = await h.run(telemetryMsg(d, { temperature: 21 }, { deviceName: 'r1' }));
    expect(r.errors).toEqual([]);
    expect(srv.seen[0]).toMatchObject({ method: 'POST', url: '/api/r1?x=21', body: '{"temperature":21}' });
    expect(srv.seen[0]!.headers['x-device']).toBe('r1');
    expect(srv.seen[0]!.headers.authorization).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(r.out[0]!.relation).toBe('Success');
    expect(r.out[0]!.msg.data).toEqual({ stored: true });
    expect(r.out[0]!.msg.metadata).toMatchObject({
      status: 'CREATED',
      statusCode: '201',
      statusReason: 'Created',
      'x-trace': 'abc',
      deviceName: 'r1',
    });
  });

  it('a body template with escaped values; GET sends no body', async () => {
    const srv = await httpServer(() => ({ status: 200, body: 'plain text' }));
    const h = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `${srv.url}/t`,
      requestMethod: 'PUT',
      headers: {},
      requestBodyTemplate: '{"name":"${deviceName}","value":$[v]}',
    });
    const d = await h.device('r2');
    const r = await h.run(telemetryMsg(d, { v: 3 }, { deviceName: 'say "hi"' }));
    expect(JSON.parse(srv.seen[0]!.body)).toEqual({ name: 'say "hi"', value: 3 });
    expect(r.out[0]!.msg.data).toBe('plain text');
    const get = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `${srv.url}/g`,
      requestMethod: 'GET',
    });
    await get.run(telemetryMsg(d, { v: 3 }));
    expect(srv.seen[1]).toMatchObject({ method: 'GET', body: '' });
  });

  it('a non-2xx answer, a refused connection and a timeout go to Failure, with the reason', async () => {
    const srv = await httpServer((req) =>
      req.url === '/slow' ? { status: 200, hang: true } : { status: 503, body: 'busy' },
    );
    const h = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `${srv.url}/x`,
      requestMethod: 'POST',
    });
    const d = await h.device('r3');
    const busy = await h.run(telemetryMsg(d, { a: 1 }));
    expect(relationsOf(busy.out)).toEqual(['Failure']);
    expect(busy.out[0]!.msg.metadata).toMatchObject({
      statusCode: '503',
      status: 'SERVICE_UNAVAILABLE',
      error_body: 'busy',
    });

    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const refused = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `http://127.0.0.1:${port}/`,
    });
    const r = await refused.run(telemetryMsg(d, {}));
    expect(relationsOf(r.out)).toEqual(['Failure']);
    expect(r.out[0]!.msg.metadata.error).toMatch(/ECONNREFUSED/);

    const slow = await nodeHarness(NODE_TYPES.restApiCall, {
      restEndpointUrlPattern: `${srv.url}/slow`,
      readTimeoutMs: 300,
    });
    const t = await slow.run(telemetryMsg(d, {}));
    expect(relationsOf(t.out)).toEqual(['Failure']);
    expect(t.out[0]!.msg.metadata.error).toBe('No response within 300 ms');
  });

  it('refuses what it cannot do before any message: proxies, other credentials, bad URLs fail the message', async () => {
    const h = await nodeHarness(NODE_TYPES.restApiCall, { enableProxy: true });
    const d = await h.device('r4');
    expect((await h.run(telemetryMsg(d, {}))).errors[0]).toMatch(/proxies are not supported/);
    const url = await nodeHarness(NODE_TYPES.restApiCall, { restEndpointUrlPattern: 'ftp://example/x' });
    expect((await url.run(telemetryMsg(d, {}))).out[0]!.msg.metadata.error).toMatch(
      /not supported: use http or https/,
    );
  });
});

describe('MQTT node', () => {
  async function broker() {
    const aedes = await Aedes.createBroker();
    const server = createServer((s) => aedes.handle(s));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    onTestFinished(async () => {
      await new Promise<void>((r) => aedes.close(() => r()));
      await new Promise<void>((r) => server.close(() => r()));
    });
    return { aedes, port };
  }

  it('publishes the message data to a topic pattern with QoS 1 on a broker on loopback', async () => {
    const { port } = await broker();
    const listener = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
    onTestFinished(() => listener.endAsync(true));
    await listener.subscribeAsync('sensors/#', { qos: 1 });
    const received = new Promise<[string, string]>((resolve) =>
      listener.once('message', (topic, payload) => resolve([topic, payload.toString()])),
    );
    const h = await nodeHarness(NODE_TYPES.mqtt, {
      host: '127.0.0.1',
      port,
      topicPattern: 'sensors/${deviceName}',
      protocolVersion: 'MQTT_5',
    });
    const d = await h.device('m1');
    const r = await h.run(telemetryMsg(d, { temperature: 5 }, { deviceName: 'm1' }));
    expect(relationsOf(r.out)).toEqual(['Success']);
    expect(await received).toEqual(['sensors/m1', '{"temperature":5}']);
  });

  it("publishes into Sandboard's own broker as a device: the data arrives as that device's telemetry", async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const res = await p.http('/api/device', { method: 'POST', token, json: { name: 'forwarded' } });
    const device = (await res.json()) as { id: { id: string } };
    const creds = (await (await p.http(`/api/device/${device.id.id}/credentials`, { token })).json()) as {
      credentialsId: string;
    };
    const port = Number(new URL(p.urls.mqtt).port);
    const h = await nodeHarness(NODE_TYPES.mqtt, {
      host: '127.0.0.1',
      port,
      topicPattern: 'v1/devices/me/telemetry',
      credentials: { type: 'basic', username: creds.credentialsId, password: null },
    });
    const d = await h.device('m2');
    expect(relationsOf((await h.run(telemetryMsg(d, { forwarded: 7 }))).out)).toEqual(['Success']);
    const ts = (await (
      await p.http(`/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=forwarded`, {
        token,
      })
    ).json()) as Record<string, { value: string }[]>;
    expect(ts.forwarded![0]!.value).toBe('7');
  });

  it('a broker that is not there: Failure within the connect timeout; no host: the node does not start', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    const h = await nodeHarness(NODE_TYPES.mqtt, {
      host: '127.0.0.1',
      port,
      connectTimeoutSec: 2,
      topicPattern: 't',
    });
    const d = await h.device('m3');
    const r = await h.run(telemetryMsg(d, {}));
    expect(relationsOf(r.out)).toEqual(['Failure']);
    expect(r.out[0]!.msg.metadata.error).toMatch(/Failed to connect to MQTT broker at 127\.0\.0\.1:\d+/);
    const noHost = await nodeHarness(NODE_TYPES.mqtt, { topicPattern: 't' });
    expect((await noHost.run(telemetryMsg(d, {}))).errors[0]).toMatch(/Host should be specified!/);
  });
});

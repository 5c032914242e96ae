// The REST Connector page's API against the real platform: connectors saved durably, started with their
// own gateway device, endpoints with curl, the request tester, the logs, autostart after a restart.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_REST_CONFIG } from '../../../shared/schemas/rest-connector.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { freePort, startGatewayPlatform, startTarget, startTlsFront } from './gateway-kit.ts';

const BASE = '/api/sandboard/restConnectors';

interface Summary {
  id: string;
  name: string;
  state: string;
  baseUrl: string | null;
  lastError: string | null;
  gatewayDeviceId: string | null;
  mqttConnected: boolean;
  counters: { requests: number; datapoints: number; outgoing: number };
}

function withPort(port: number | string) {
  const config = structuredClone(DEFAULT_REST_CONFIG) as { server: { port: number | string } };
  config.server.port = port;
  return config;
}

describe('REST connector API', () => {
  it('saves, validates, starts, tests, logs, restarts on update, stops and deletes connectors', async () => {
    const dataDir = tempDir();
    const platform = await startTestPlatform({ dataDir });
    const token = await platform.login();
    const call = async <T = unknown>(method: string, path: string, json?: unknown) => {
      const res = await platform.http(path, { method, token, ...(json !== undefined ? { json } : {}) });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
    };

    const schema = await call<{ title: string; properties: Record<string, unknown> }>(
      'GET',
      `${BASE}/schema`,
    );
    expect(schema.body.title).toBe('ThingsBoard IoT Gateway REST connector (rest.json)');
    expect(Object.keys(schema.body.properties)).toEqual(
      expect.arrayContaining(['server', 'mapping', 'requestsMapping']),
    );
    expect((await call('GET', `${BASE}/template`)).body).toEqual(DEFAULT_REST_CONFIG);
    const invalid = { server: { port: 'x' }, mapping: [{ endpoint: '/a', converter: { type: 'js' } }] };
    expect((await call('POST', `${BASE}/validate`, { config: invalid })).body).toEqual({
      valid: false,
      format: 'new',
      errors: [
        { path: 'server.port', message: 'must be an integer or a string' },
        { path: 'mapping[0].converter.type', message: 'must be "json" or "custom"' },
      ],
      warnings: [],
    });
    const refused = await call<{ message: string }>('POST', BASE, { name: 'bad', config: invalid });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'rest.json is not valid:\nserver.port: must be an integer or a string\nmapping[0].converter.type: must be "json" or "custom"',
    );

    // a connector with the gateway's default rest.json (its port: a free one)
    const port = await freePort();
    const created = await call<Summary & { config: unknown; validation: { valid: boolean } }>('POST', BASE, {
      name: 'Plant A',
      config: withPort(String(port)),
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: 'Plant A',
      state: 'stopped',
      baseUrl: null,
      validation: { valid: true },
    });
    const id = created.body.id;
    const stoppedEndpoints = await call<{ url: string | null; curl: string }[]>(
      'GET',
      `${BASE}/${id}/endpoints`,
    );
    expect(stoppedEndpoints.body[0]).toMatchObject({
      url: null,
      curl: expect.stringContaining(`http://127.0.0.1:${port}/my_devices`),
    });
    expect((await call('POST', `${BASE}/${id}/test`, { method: 'GET', path: '/anon1' })).status).toBe(409);

    const started = await call<Summary>('POST', `${BASE}/${id}/start`);
    expect(started.body).toMatchObject({
      state: 'running',
      baseUrl: `http://127.0.0.1:${port}`,
      mqttConnected: true,
    });
    const gateway = await call<{ name: string; additionalInfo: { gateway: boolean } }>(
      'GET',
      `/api/device/${started.body.gatewayDeviceId}`,
    );
    expect(gateway.body).toMatchObject({ name: 'Plant A', additionalInfo: { gateway: true } });

    const endpoints = await call<{ method: string; path: string; url: string; curl: string }[]>(
      'GET',
      `${BASE}/${id}/endpoints`,
    );
    expect(endpoints.body.map((e) => `${e.method} ${e.path}`)).toEqual([
      'POST /my_devices',
      'GET /anon1',
      'POST /anon1',
      'POST /anon2',
      'POST /sharedAttributes',
    ]);
    expect(endpoints.body[0]!.curl).toBe(
      `curl -X POST http://127.0.0.1:${port}/my_devices -H 'Content-Type: application/json' -d '{"sensorName":"SN-001","sensorType":"default","sensorModel":"sensorModel-value","certificateNumber":"certificateNumber-value","temp":21.5,"hum":48.5}'`,
    );

    // the tester: JSON, then multipart from the UI
    const tested = await call<{ status: number; body: string; curl: string }>('POST', `${BASE}/${id}/test`, {
      method: 'POST',
      path: '/my_devices',
      json: { sensorName: 'SN-7', temp: 20.5, hum: 30 },
    });
    expect(tested.body).toMatchObject({ status: 200, body: '' });
    expect(tested.body.curl).toContain(`-d '{"sensorName":"SN-7","temp":20.5,"hum":30}'`);
    const multipart = await call<{ status: number }>('POST', `${BASE}/${id}/test`, {
      method: 'POST',
      path: '/anon1',
      form: { fields: { temp: '17.5' }, files: [{ name: 'f', filename: 'a.txt', content: 'hello' }] },
    });
    expect(multipart.body.status).toBe(200);
    const bad = await call<{ status: number; body: string }>('POST', `${BASE}/${id}/test`, {
      method: 'POST',
      path: '/my_devices',
      text: '{oops',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.body.status).toBe(400);
    const device2 = await call<{ id: { id: string } }>('GET', '/api/tenant/devices?deviceName=Device%202');
    const t = await call<{ temperature: { value: unknown }[] }>(
      'GET',
      `/api/plugins/telemetry/DEVICE/${device2.body.id.id}/values/timeseries?keys=temperature&useStrictDataTypes=true`,
    );
    expect(t.body.temperature[0]!.value).toBe(17.5);

    const log = await call<
      {
        method: string;
        path: string;
        status: number;
        device: string | null;
        datapoints: number;
        warnings: string[];
      }[]
    >('GET', `${BASE}/${id}/requests?limit=10`);
    expect(log.body.map((e) => [e.path, e.status, e.device, e.datapoints])).toEqual([
      ['/my_devices', 400, null, 0],
      ['/anon1', 200, 'Device 2', 2],
      ['/my_devices', 200, 'SN-7', 2],
    ]);
    expect(log.body[1]!.warnings).toContain("file part 'f' (a.txt, 5 bytes) ignored");

    // an update while running restarts the connector with the new rest.json (an outgoing rule added)
    const target = await startTarget();
    const updated = structuredClone(DEFAULT_REST_CONFIG) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    updated.server.port = port;
    updated.requestsMapping.attributeUpdates = [
      {
        deviceNameFilter: 'SN.*',
        attributeFilter: '.*',
        requestUrlExpression: `${target.url}/\${deviceName}`,
        security: { type: 'anonymous' },
      },
    ];
    // autostart alone changes nothing the running gateway uses: no restart, the counters go on
    const toggled = await call<Summary & { autostart: boolean }>('PUT', `${BASE}/${id}`, {
      name: 'Plant A',
      config: withPort(String(port)),
      autostart: true,
    });
    expect(toggled.body).toMatchObject({ state: 'running', autostart: true, counters: { requests: 3 } });
    const put = await call<Summary>('PUT', `${BASE}/${id}`, { name: 'Plant A', config: updated });
    expect(put.body).toMatchObject({ state: 'running', counters: { requests: 0 } });
    expect(
      (
        await call('POST', `${BASE}/${id}/test`, {
          method: 'POST',
          path: '/my_devices',
          json: { sensorName: 'SN-7', temp: 1 },
        })
      ).body,
    ).toMatchObject({ status: 200 });
    const sn7 = await call<{ id: { id: string } }>('GET', '/api/tenant/devices?deviceName=SN-7');
    const sent = target.next();
    await call('POST', `/api/plugins/telemetry/DEVICE/${sn7.body.id.id}/SHARED_SCOPE`, { mode: 'eco' });
    expect((await sent).url).toBe('/SN-7');
    let outgoing = await call<{ state: string; tries: unknown[]; device: string; trigger: string }[]>(
      'GET',
      `${BASE}/${id}/outgoing`,
    );
    while (outgoing.body[0]?.state === 'pending') outgoing = await call('GET', `${BASE}/${id}/outgoing`);
    expect(outgoing.body[0]).toMatchObject({
      state: 'ok',
      device: 'SN-7',
      trigger: 'mode',
      tries: [{ status: 200 }],
    });

    // a second connector on the same port cannot start; it says why
    const clash = await call<Summary>('POST', BASE, { name: 'Plant B', config: withPort(port) });
    const failed = await call<{ message: string }>('POST', `${BASE}/${clash.body.id}/start`);
    expect(failed.status).toBe(502);
    expect(failed.body.message).toBe(
      `REST connector 'Plant B' did not start: port ${port} on 127.0.0.1 is already in use`,
    );
    const list = await call<Summary[]>('GET', BASE);
    expect(list.body.map((c) => [c.name, c.state])).toEqual([
      ['Plant A', 'running'],
      ['Plant B', 'failed'],
    ]);
    // several gateways at once: Plant B on a port of its own
    await call('PUT', `${BASE}/${clash.body.id}`, { name: 'Plant B', config: withPort(0), autostart: true });
    const b = await call<Summary>('POST', `${BASE}/${clash.body.id}/start`);
    expect(b.body).toMatchObject({ state: 'running', lastError: null });
    expect(b.body.gatewayDeviceId).not.toBe(started.body.gatewayDeviceId);

    // HTTPS on request: a self-signed pair, the connector restarts on it
    const tls = await call<Summary & { config: { server: { SSL: boolean } } }>(
      'POST',
      `${BASE}/${id}/selfSignedCertificate`,
    );
    expect(tls.body).toMatchObject({
      state: 'running',
      baseUrl: `https://127.0.0.1:${port}`,
      config: { server: { SSL: true } },
    });
    expect(
      (await call('POST', `${BASE}/${id}/test`, { method: 'GET', path: '/anon1', query: { temp: '3' } }))
        .body,
    ).toMatchObject({ status: 200 });

    // customers may not touch connectors
    const customer = await platform.login('customer@thingsboard.org', 'customer');
    expect((await platform.http(BASE, { token: customer })).status).toBe(403);

    expect((await call<Summary>('POST', `${BASE}/${id}/stop`)).body.state).toBe('stopped');
    expect((await call('DELETE', `${BASE}/${id}`)).status).toBe(200);
    expect((await call('GET', `${BASE}/${id}`)).status).toBe(404);

    // Plant B was saved with autostart: after a restart it runs again; stopping the platform stops it
    const bUrl = (await call<Summary>('GET', `${BASE}/${clash.body.id}`)).body.baseUrl!;
    await platform.stop();
    await expect(fetch(`${bUrl}/anon1?temp=1`)).rejects.toThrow();
    const again = await startTestPlatform({ dataDir });
    const token2 = await again.login();
    const after = (await (await again.http(BASE, { token: token2 })).json()) as Summary[];
    expect(after.map((c) => [c.name, c.state])).toEqual([['Plant B', 'running']]);
    expect((await fetch(`${after[0]!.baseUrl}/anon1?temp=1`)).status).toBe(200);
  });

  it('connects to another platform over mqtts:// with its CA certificate, and says what to do without it', async () => {
    const platform = await startGatewayPlatform();
    const token = await platform.login();
    const call = async <T = Record<string, unknown>>(method: string, path: string, json?: unknown) => {
      const res = await platform.http(path, { method, token, ...(json !== undefined ? { json } : {}) });
      return { status: res.status, body: (await res.json()) as T };
    };
    // "another" ThingsBoard: this platform behind TLS with a self-signed certificate
    const remote = await startTlsFront(platform.urls.mqtt);
    const gatewayToken = await platform.gatewayToken('Remote gateway');
    const config = withPort(0);

    const notTls = await call<{ message: string }>('POST', BASE, {
      name: 'Plain',
      config,
      target: { url: platform.urls.mqtt, token: gatewayToken, insecure: true },
    });
    expect(notTls.status).toBe(400);
    expect(notTls.body.message).toBe('target.ca and target.insecure are for an mqtts:// platform');

    const untrusted = await call<{ id: string }>('POST', BASE, {
      name: 'Untrusted',
      config,
      target: { url: remote.url, token: gatewayToken },
    });
    const refused = await call<{ message: string }>('POST', `${BASE}/${untrusted.body.id}/start`);
    expect(refused.status).toBe(502);
    expect(refused.body.message).toBe(
      `REST connector 'Untrusted' did not start: ${remote.url}: its TLS certificate is not trusted (self-signed); give the connector the platform's CA certificate, or turn the certificate check off`,
    );

    const trusted = await call<{ id: string }>('POST', BASE, {
      name: 'Trusted',
      config,
      target: { url: remote.url, token: gatewayToken, ca: remote.caPem },
    });
    const started = await call<Summary>('POST', `${BASE}/${trusted.body.id}/start`);
    expect(started.body).toMatchObject({ state: 'running', mqttConnected: true, gatewayDeviceId: null });
    const sent = await call<{ status: number }>('POST', `${BASE}/${trusted.body.id}/test`, {
      method: 'POST',
      path: '/my_devices',
      json: { sensorName: 'TLS-7', temp: 12.5 },
    });
    expect(sent.body.status).toBe(200);
    expect((await platform.latest('TLS-7', ['temperature'])).temperature![0]!.value).toBe(12.5);
    await call('POST', `${BASE}/${trusted.body.id}/stop`);
  });

  it('lists the custom converter modules of the data directory without running them', async () => {
    const dataDir = tempDir();
    const platform = await startTestPlatform({ dataDir });
    try {
      const token = await platform.login();
      const list = async () =>
        (await (await platform.http(`${BASE}/converters`, { token })).json()) as {
          dir: string;
          modules: { file: string; sizeBytes: number; modifiedTime: number }[];
          sample: string;
        };
      const dir = join(dataDir, 'converters');
      expect(await list()).toEqual({ dir, modules: [], sample: 'CustomRestUplinkConverter' });

      mkdirSync(dir, { recursive: true });
      // it would throw if it were run: listing must not import it
      const source = "throw new Error('run');\nexport class Meter {}\n";
      writeFileSync(join(dir, 'Meter.mjs'), source);
      writeFileSync(join(dir, 'notes.txt'), 'not a module');
      const { modules } = await list();
      expect(modules.map((m) => [m.file, m.sizeBytes])).toEqual([['Meter.mjs', source.length]]);
      expect(Math.abs(modules[0]!.modifiedTime - Date.now())).toBeLessThan(60_000);

      expect((await platform.http(`${BASE}/converters`)).status).toBe(401);
      const customer = await platform.login('customer@thingsboard.org', 'customer');
      expect((await platform.http(`${BASE}/converters`, { token: customer })).status).toBe(403);
    } finally {
      await platform.stop();
    }
  });
});

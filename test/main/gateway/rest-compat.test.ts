// Both of compat's rest.json files (the gateway's default, new format, and the legacy one) run as they are,
// endpoint by endpoint, against the real platform; only their ports are this run's free ports.
import { describe, expect, it } from 'vitest';
import {
  compatConfig,
  freePort,
  outgoingDone,
  startGateway,
  startGatewayPlatform,
  startTarget,
  type Received,
} from './gateway-kit.ts';

describe.each([
  ['tb-gateway-default-rest.json', 'new'],
  ['tb-gateway-legacy-rest.json', 'legacy'],
])('%s', (file, format) => {
  it('serves every endpoint and answers attribute updates and RPC as configured', async () => {
    const platform = await startGatewayPlatform();
    // the 5001 target answers the echo RPC with what it got; the gateway's own port is 5000 in the file
    const target = await startTarget((r: Received, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          path: r.url,
          method: r.method,
          got: r.body ? (JSON.parse(r.body) as unknown) : null,
        }),
      );
    });
    const port = await freePort();
    const config = compatConfig(file, {
      '"port": "5000"': `"port": "${port}"`,
      '127.0.0.1:5000': `127.0.0.1:${port}`,
      '127.0.0.1:5001': `127.0.0.1:${target.port}`,
    });
    const gw = await startGateway(platform, config);
    expect(gw.runtime.connector.endpoints().length).toBe(5);
    expect(gw.baseUrl).toBe(`http://127.0.0.1:${port}`);

    // /my_devices: device name and profile from the request, typed telemetry, client attributes
    let res = await gw.request('/my_devices', {
      method: 'POST',
      json: {
        sensorName: 'SN-1',
        sensorType: 'thermometer',
        sensorModel: 'T1000',
        certificateNumber: 'C-77',
        temp: '21.5',
        hum: 40.25,
      },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('');
    expect((await platform.device('SN-1')).type).toBe('thermometer');
    const sn1 = await platform.latest('SN-1', ['temperature', 'humidity']);
    expect(sn1.temperature![0]!.value).toBe(21.5); // a double, not the gateway's "21.5"
    expect(sn1.humidity![0]!.value).toBe(40.25);
    expect(await platform.attributes('SN-1', 'CLIENT_SCOPE')).toMatchObject({
      model: 'T1000',
      certificateNumber: 'C-77',
    });
    expect((await gw.request('/my_devices', { method: 'GET' })).status).toBe(405);

    // /anon1: a constant device; GET query parameters and a POST body
    res = await gw.request('/anon1?temp=19&hum=55.5');
    expect(res.status).toBe(200);
    expect((await platform.latest('Device 2', ['temperature', 'humidity'])).humidity![0]!.value).toBe(55.5);
    expect(await platform.attributes('Device 2', 'CLIENT_SCOPE')).toMatchObject({ model: 'Model2' });
    res = await gw.request('/anon1', { method: 'POST', json: { temp: 18.25 } });
    expect(res.status).toBe(200);
    expect((await platform.latest('Device 2', ['temperature'])).temperature![0]!.value).toBe(18.25);

    // /anon2: the custom converter (the shipped sample) decodes a big-endian float
    res = await gw.request('/anon2', { method: 'POST', json: { data: '0x41200000' } });
    expect(res.status).toBe(200);
    expect((await platform.latest('SuperAnonDevice', ['Totaliser'])).Totaliser![0]!.value).toBe(10);
    res = await gw.request('/anon2', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream' },
      body: Buffer.from([0x42, 0xf6, 0xe9, 0x79]),
    });
    expect(res.status).toBe(200);
    expect((await platform.latest('SuperAnonDevice', ['Totaliser'])).Totaliser![0]!.value).toBe(123.456);

    // attributeUpdates: a shared attribute of an SN device goes out to the 5001 target
    const updateSent = target.next();
    await platform.setShared('SN-1', { targetTemperature: 23 });
    const update = await updateSent;
    expect(update.method).toBe('POST');
    expect(update.url).toBe('/');
    expect(JSON.parse(update.body)).toEqual({ deviceName: 'SN-1', targetTemperature: '23' });

    // /sharedAttributes: the platform's answer is the body; two expressions, two keys
    res = await gw.request('/sharedAttributes', {
      method: 'POST',
      json: { deviceName: 'SN-1', attribute: 'targetTemperature', attribute1: 'mode' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ device: 'SN-1', values: { targetTemperature: 23 } });

    // serverSideRpc echo: GET http://127.0.0.1:5001/${deviceName} with ${params}; the answer goes back
    const echo = await platform.rpc('SN-1', 'echo', { hello: 'world' });
    expect(echo.status).toBe(200);
    expect(echo.body).toEqual({ result: { path: '/SN-1', method: 'GET', got: { hello: 'world' } } });

    // serverSideRpc post_attributes: the gateway calls its own /my_devices with ${params.x} values
    const posted = await platform.rpc('SN-1', 'post_attributes', {
      sensorModel: 'T2000',
      certificateNumber: 'C-78',
      temp: 30.5,
      hum: 41,
    });
    expect(posted).toEqual({ status: 200, body: { result: '' } });
    expect((await platform.latest('SN-1', ['temperature'])).temperature![0]!.value).toBe(30.5);
    expect(await platform.attributes('SN-1', 'CLIENT_SCOPE')).toMatchObject({ model: 'T2000' });

    if (format === 'new') {
      // the second attributeUpdates entry uses a client certificate that is not there: logged, not retried
      await gw.request('/my_devices', { method: 'POST', json: { sensorName: 'CERT-1', temp: 1 } });
      const failed = outgoingDone(gw, (e) => e.device === 'CERT-1');
      await platform.setShared('CERT-1', { mode: 'eco' });
      const entry = await failed;
      expect(entry).toMatchObject({
        kind: 'attributeUpdate',
        state: 'failed',
        url: 'http://127.0.0.1:5002/',
      });
      expect(entry.error).toMatch(
        /cannot read the client certificate \/thingsboard_gateway\/config\/cert\.pem/,
      );
      expect(entry.tries).toHaveLength(1);
      expect(gw.logs.some((l) => l.includes('CERT-1') && l.includes('failed'))).toBe(true);
    }

    const log = gw.runtime.connector.requestLog();
    expect(log.find((e) => e.path === '/anon1' && e.method === 'GET')).toMatchObject({
      status: 200,
      device: 'Device 2',
      datapoints: 3,
    });
    expect(gw.runtime.gateway.connected).toBe(true);
  });
});

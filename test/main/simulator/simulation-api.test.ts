import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Scenario, SimulationDetails } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { CUSTOMER, expectTbError, okEmpty, okJson } from '../api/api-kit.ts';
import { BASE, sampleScenario, simulationApi, telemetryFromDevices } from './sim-kit.ts';

const poll = { timeout: 10_000, interval: 50 };

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('gateway simulation over REST and real MQTT', () => {
  it('runs 2 gateways x 5 devices: counters move, telemetry lands, RPC is answered, attribute updates are logged, stop stops', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = sampleScenario(200);
    const created = await api.create(scenario);
    expect(created).toMatchObject({ state: 'stopped', target: 'embedded', gateways: 2, devices: 10 });
    expect(created.scenario).toEqual(scenario);

    const tenDevices = telemetryFromDevices(p, 10);
    const started = await api.start(created.id);
    expect(started.state).toBe('running');
    expect(started.counters.sent).toBeGreaterThanOrEqual(10); // the 10 device connects at least
    await tenDevices;

    // the telemetry of every device is visible through REST, all keys of its gateway
    for (const g of scenario.gateways) {
      for (const n of [1, 5]) {
        const name = g.deviceNamePattern!.replace('${n}', String(n));
        const id = await api.deviceId(name);
        const latest = await okJson<Record<string, { ts: number; value: unknown }[]>>(
          p.http(`/api/plugins/telemetry/DEVICE/${id}/values/timeseries?useStrictDataTypes=true`, { token }),
        );
        expect(Object.keys(latest).sort(), name).toEqual(g.keys.map((k) => k.key).sort());
        const device = await okJson<{ type: string; additionalInfo: Record<string, unknown> }>(
          p.http(`/api/device/${id}`, { token }),
        );
        expect(device.type).toBe(g.deviceType);
      }
    }
    // the gateway device was created as a gateway, and the client attributes were sent at connect
    const gatewayId = await api.deviceId('Building A Gateway');
    const gateway = await okJson<{ additionalInfo: Record<string, unknown> }>(
      p.http(`/api/device/${gatewayId}`, { token }),
    );
    expect(gateway.additionalInfo.gateway).toBe(true);
    const floor2 = await api.deviceId('Building A Floor 2 Climate');
    const attrs = await okJson<{ key: string; value: unknown }[]>(
      p.http(`/api/plugins/telemetry/DEVICE/${floor2}/values/attributes/CLIENT_SCOPE`, { token }),
    );
    expect(Object.fromEntries(attrs.map((a) => [a.key, a.value]))).toMatchObject({
      floor: '2',
      serial: 'CLM-A-2',
      building: 'A',
    });

    // counters move: telemetry keeps flowing and is acknowledged (QoS 1)
    await expect
      .poll(async () => (await api.status(created.id)).counters.telemetryMessages, poll)
      .toBeGreaterThan(8);
    const running = await api.status(created.id);
    expect(running.counters.acknowledged).toBeGreaterThan(0);
    expect(running.counters.failed).toBe(0);
    expect(running.counters.datapoints).toBeGreaterThan(running.counters.telemetryMessages);
    expect(
      running.gatewayStatus.map((g) => [g.name, g.state, g.connectedDevices, g.protocolVersion]),
    ).toEqual([
      ['Building A Gateway', 'connected', 5, 5],
      ['Building B Gateway', 'connected', 5, 4],
    ]);
    expect(running.gatewayStatus[0]!.deviceId).toBe(gatewayId);

    // RPC through REST, answered by the gateway's responders (MQTT 5 and MQTT 3.1.1 gateways)
    const rpc = (deviceId: string, method: string, params: unknown) =>
      okJson(p.http(`/api/rpc/twoway/${deviceId}`, { method: 'POST', token, json: { method, params } }));
    expect(await rpc(floor2, 'getState', { probe: 42 })).toEqual({ probe: 42 });
    expect(await rpc(floor2, 'setSetpoint', { value: 22 })).toEqual({ accepted: true });
    expect(await rpc(floor2, 'selfDestruct', {})).toEqual({ error: 'Unsupported method' });
    const meter3 = await api.deviceId('Building B Meter 3');
    expect(await rpc(meter3, 'getReading', { register: 7 })).toEqual({ register: 7 });

    // a shared attribute update reaches the gateway and lands in its log
    await okEmpty(
      p.http(`/api/plugins/telemetry/DEVICE/${floor2}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { setpoint: 21.5 },
      }),
    );
    await expect
      .poll(async () => (await api.status(created.id)).attributeLog, poll)
      .toContainEqual(
        expect.objectContaining({
          gateway: 'Building A Gateway',
          device: 'Building A Floor 2 Climate',
          data: { setpoint: 21.5 },
        }),
      );
    const logged = await api.status(created.id);
    expect(logged.counters.attributeUpdates).toBe(1);
    expect(logged.rpcLog.map((e) => [e.device, e.method, e.responder, e.status])).toEqual([
      ['Building B Meter 3', 'getReading', 'echo', 'answered'],
      ['Building A Floor 2 Climate', 'selfDestruct', 'error', 'answered'],
      ['Building A Floor 2 Climate', 'setSetpoint', 'fixed', 'answered'],
      ['Building A Floor 2 Climate', 'getState', 'echo', 'answered'],
    ]);
    expect(logged.rpcLog[3]).toMatchObject({ params: { probe: 42 }, reply: { probe: 42 } });
    expect(logged.history.length).toBeGreaterThan(0);
    expect(logged.history.at(-1)).toEqual(
      expect.objectContaining({ ts: expect.any(Number), sent: expect.any(Number) }),
    );

    // stop: the gateways disconnect and nothing is published any more
    const stopped = await api.stop(created.id);
    expect(stopped).toMatchObject({ state: 'stopped', finishReason: 'stopped' });
    expect(stopped.counters.inFlight).toBe(0);
    await expect.poll(() => p.mqtt.stats().sessions, poll).toBe(0);
    const after = await api.status(created.id);
    expect(after.counters.sent).toBe(stopped.counters.sent);
    expect(after.gatewayStatus.map((g) => g.state)).toEqual(['stopped', 'stopped']);
    const list = await api.list();
    expect(list).toEqual([expect.objectContaining({ id: created.id, state: 'stopped' })]);
  });

  it('answers 400 naming the JSON path of a bad scenario, on create, update and import', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const bad = sampleScenario() as unknown as {
      gateways: { keys: { generator: Record<string, unknown> }[] }[];
    };
    bad.gateways[0]!.keys[2]!.generator.min = 'low';
    await expectTbError(
      await p.http(BASE, { method: 'POST', token, json: bad }),
      400,
      30,
      'gateways[0].keys[2].generator.min: must be a number',
    );
    await expectTbError(
      await p.http(`${BASE}/import`, {
        method: 'POST',
        token,
        json: { name: 'x', gateways: [{ name: 'g' }] },
      }),
      400,
      30,
      /gateways\[0\]\.devicesCount: is required; gateways\[0\]\.keys: is required/,
    );
    const created = await simulationApi(p, token).create(sampleScenario());
    await expectTbError(
      await p.http(`${BASE}/${created.id}`, {
        method: 'PUT',
        token,
        json: { ...sampleScenario(), target: { kind: 'remote', host: 'tb.example.com', port: 1883 } },
      }),
      400,
      30,
      'gateways[0].token: is required for a remote target',
    );
    await expectTbError(await p.http(`${BASE}/${crypto.randomUUID()}`, { token }), 404, 32);
  });

  it('keeps scenarios durably, exports them as a file and imports them back', async () => {
    const dataDir = tempDir();
    const first = await startTestPlatform({ dataDir });
    let token = await first.login();
    const scenario = sampleScenario();
    const created = await simulationApi(first, token).create(scenario);
    const renamed: Scenario = { ...scenario, name: 'Renamed', durationMs: 60_000 };
    const updated = await okJson<SimulationDetails>(
      first.http(`${BASE}/${created.id}`, { method: 'PUT', token, json: renamed }),
    );
    expect(updated).toMatchObject({ id: created.id, name: 'Renamed', scenario: renamed });
    await first.stop();

    const p = await startTestPlatform({ dataDir });
    token = await p.login();
    const again = await okJson<SimulationDetails>(p.http(`${BASE}/${created.id}`, { token }));
    expect(again.scenario).toEqual(renamed);

    const file = await p.http(`${BASE}/${created.id}/export`, { token });
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="Renamed.json"');
    expect(file.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await file.text();
    expect(JSON.parse(text)).toEqual(renamed);

    const imported = await okJson<SimulationDetails>(
      p.http(`${BASE}/import`, { method: 'POST', token, json: JSON.parse(text) }),
    );
    expect(imported.id).not.toBe(created.id);
    expect(imported.name).toBe('Renamed (2)');
    expect(imported.scenario).toEqual({ ...renamed, name: 'Renamed (2)' });
    const api = simulationApi(p, token);
    expect((await api.list()).map((s) => s.name)).toEqual(['Renamed', 'Renamed (2)']);

    await okEmpty(p.http(`${BASE}/${created.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`${BASE}/${created.id}`, { token }), 404, 32);
    expect((await api.list()).map((s) => s.name)).toEqual(['Renamed (2)']);
  });

  it('is for tenant administrators only', async () => {
    const p = await startTestPlatform();
    await expectTbError(await p.http(BASE), 401, 10);
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(await p.http(BASE, { token: customer }), 403, 20);
    await expectTbError(
      await p.http(BASE, { method: 'POST', token: customer, json: sampleScenario() }),
      403,
      20,
    );
  });

  it('ends a run after its duration or its number of messages', async () => {
    const p = await startTestPlatform();
    const api = simulationApi(p, await p.login());
    const { id } = await api.create(sampleScenario(50));
    await api.start(id, { messages: 3 });
    await expect.poll(async () => (await api.status(id)).state, poll).toBe('stopped');
    const counted = await api.status(id);
    expect(counted.finishReason).toBe('messages');
    expect(counted.counters.telemetryMessages).toBe(6);
    expect(counted.gatewayStatus.map((g) => g.state)).toEqual(['finished', 'finished']);

    await api.start(id, { durationMs: 300 });
    await expect.poll(async () => (await api.status(id)).finishReason, poll).toBe('duration');
    expect((await api.status(id)).state).toBe('stopped');
  });

  it('counts MQTT 5 PUBACK reason codes (0x97 past the device limit) and MQTT 3.1.1 dropped connections', async () => {
    const p = await startTestPlatform({ deviceLimit: 4 });
    const token = await p.login();
    const api = simulationApi(p, token);
    const scenario = sampleScenario(100);
    scenario.gateways = [scenario.gateways[0]!];
    const { id } = await api.create(scenario);
    await api.start(id);
    const status = await api.status(id);
    // the gateway device and 3 of its 5 devices fit
    expect(status.counters.failedByReason).toEqual({ '0x97': 2 });
    expect(status.gatewayStatus[0]).toMatchObject({ state: 'connected', connectedDevices: 3 });
    expect(status.gatewayStatus[0]!.error).toBe(
      '2 device connect(s) refused: 0x97 Quota exceeded (a transport rate limit, or the device limit)',
    );
    await api.stop(id);

    // MQTT 3.1.1 has no reason codes: the server drops the connection, which fails the start
    const v4 = sampleScenario(100);
    v4.name = 'v4';
    v4.gateways = [{ ...v4.gateways[1]!, devicesCount: 6 }];
    const second = await api.create(v4);
    await expectTbError(
      await p.http(`${BASE}/${second.id}/start`, { method: 'POST', token }),
      502,
      2,
      /Gateway 'Building B Gateway': the server closed the connection while the devices connected \(MQTT 3\.1\.1/,
    );
    const dropped = await api.status(second.id);
    expect(dropped.state).toBe('failed');
    expect(dropped.counters.failedByReason['connection-lost']).toBeGreaterThan(0);
  });

  it('counts publishes a transport rate limit refused by their reason code (0x97), as the page shows them', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    const limits = await okJson<Record<string, string>>(p.http('/api/sandboard/transportLimits', { token }));
    await okJson(
      p.http('/api/sandboard/transportLimits', {
        method: 'POST',
        token,
        json: { ...limits, transportGatewayTelemetryMsgRateLimit: '2:3600' },
      }),
    );
    const scenario = sampleScenario(50);
    scenario.gateways = [scenario.gateways[0]!];
    expect(scenario.gateways[0]!.protocolVersion).toBe(5);
    const { id } = await api.create(scenario);
    await api.start(id);
    await expect
      .poll(async () => (await api.status(id)).counters.failedByReason['0x97'] ?? 0, poll)
      .toBeGreaterThan(0);
    const status = await api.status(id);
    // every refused publish is a telemetry message of the run, counted under its reason code
    expect(status.counters.telemetryMessages).toBeGreaterThanOrEqual(status.counters.failedByReason['0x97']!);
    await api.stop(id);
    expect((await api.status(id)).counters.messagesPerSecond).toBe(0);
  });

  it('runs against a remote target with a given token, and says why it cannot connect', async () => {
    const p = await startTestPlatform();
    const token = await p.login();
    const api = simulationApi(p, token);
    await okJson(
      p.http('/api/device?accessToken=remote-gw-token', {
        method: 'POST',
        token,
        json: { name: 'Remote GW', additionalInfo: { gateway: true } },
      }),
    );
    await okJson(
      p.http('/api/device?accessToken=plain-device-token', {
        method: 'POST',
        token,
        json: { name: 'Plain' },
      }),
    );
    const port = Number(new URL(p.urls.mqtt).port);
    const remote = (gatewayToken: string, targetPort = port): Scenario => ({
      name: `remote ${gatewayToken}`,
      target: { kind: 'remote', host: '127.0.0.1', port: targetPort },
      gateways: [
        {
          name: 'Remote GW',
          token: gatewayToken,
          protocolVersion: 4,
          periodMs: 100,
          devicesCount: 2,
          keys: [{ key: 'n', generator: { kind: 'counter' } }],
        },
      ],
    });
    const two = telemetryFromDevices(p, 2);
    const ok = await api.create(remote('remote-gw-token'));
    expect(ok.target).toBe(`127.0.0.1:${port}`);
    await api.start(ok.id);
    await two;
    await api.stop(ok.id);

    const refused = async (scenario: Scenario, message: RegExp) => {
      const { id } = await api.create(scenario);
      await expectTbError(await p.http(`${BASE}/${id}/start`, { method: 'POST', token }), 502, 2, message);
      const status = await api.status(id);
      expect(status.state).toBe('failed');
      expect(status.lastError).toMatch(message);
    };
    await refused(remote('wrong-token'), /Gateway 'Remote GW': .* refused the access token/);
    await refused(remote('plain-device-token'), /is the device of this token a gateway/);
    await refused(remote('remote-gw-token', await closedPort()), /connection refused/);
  });

  it('stops every simulation when the platform stops', async () => {
    const p = await startTestPlatform();
    const api = simulationApi(p, await p.login());
    const { id } = await api.create(sampleScenario(100));
    await api.start(id);
    expect(p.mqtt.stats().gatewaySessions).toBe(2);
    await p.stop();
    expect(p.mqtt.stats().sessions).toBe(0);
  });
});

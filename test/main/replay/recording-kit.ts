import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDING_FORMAT, RECORDING_VERSION } from '../../../shared/schemas/recording.ts';
import { alarm, numeric, profileWithAlarms, rule } from '../../fixtures/alarm-rules.ts';
import type { TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

export const header = (extra: Record<string, unknown> = {}) => ({
  kind: 'header',
  format: RECORDING_FORMAT,
  version: RECORDING_VERSION,
  name: 'thermostat regression',
  startedAt: Date.now() - 60_000,
  ...extra,
});

/** The records as a recording file (JSON Lines), written to a temporary directory. */
export function writeRecording(records: unknown[]): string {
  const path = join(tempDir(), 'recording.jsonl');
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

/** A thermostat profile whose alarm rule raises High Temperature (MAJOR) above `threshold` and clears it at or below. */
export const thermostatProfile = (threshold: number) =>
  profileWithAlarms('thermostat', [
    alarm(
      'High Temperature',
      { MAJOR: rule([numeric('temperature', 'GREATER', threshold)]) },
      rule([numeric('temperature', 'LESS_OR_EQUAL', threshold)]),
    ),
  ]);

export async function saveThermostatProfile(
  platform: TestPlatform,
  token: string,
  threshold: number,
  id?: string,
): Promise<string> {
  const res = await platform.http('/api/deviceProfile', {
    method: 'POST',
    token,
    json: { ...thermostatProfile(threshold), ...(id ? { id: { entityType: 'DEVICE_PROFILE', id } } : {}) },
  });
  if (res.status !== 200) throw new Error(`profile: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: { id: string } }).id.id;
}

export async function deviceCount(platform: TestPlatform, token: string): Promise<number> {
  const res = await platform.http('/api/tenant/devices?pageSize=1&page=0', { token });
  return ((await res.json()) as { totalElements: number }).totalElements;
}

const telemetry = (t: number, device: string, values: Record<string, unknown>) => ({
  kind: 'mqtt.publish',
  t,
  device,
  direction: 'in',
  topic: 'v1/devices/me/telemetry',
  qos: 1,
  payload: JSON.stringify(values),
  expect: { reasonCode: 0 },
});

/**
 * A thermostat fleet's recording: a thermostat that overheats (alarm raised), is told by RPC to go to eco
 * mode, gets a shared attribute and cools down (alarm cleared); a gateway with a sensor behind it, asked
 * for its state by RPC; a device on the HTTP API. `t` spans about 300 ms.
 */
export function thermostatRecording(): unknown[] {
  return [
    header(),
    { kind: 'device', t: 0, name: 'Thermostat T1', type: 'thermostat' },
    { kind: 'device', t: 0, name: 'Gateway G1', type: 'default', gateway: true },
    { kind: 'device', t: 0, name: 'Sensor S1', type: 'default', via: 'Gateway G1' },
    { kind: 'device', t: 0, name: 'Meter H1', type: 'default' },
    { kind: 'mqtt.connect', t: 1, device: 'Thermostat T1', protocolVersion: 5, expect: { reasonCode: 0 } },
    { kind: 'mqtt.connect', t: 2, device: 'Gateway G1', expect: { reasonCode: 0 } },
    telemetry(10, 'Thermostat T1', { temperature: 55 }),
    {
      kind: 'mqtt.publish',
      t: 12,
      device: 'Gateway G1',
      direction: 'in',
      topic: 'v1/gateway/telemetry',
      qos: 1,
      payload: JSON.stringify({ 'Sensor S1': [{ humidity: 40.2 }] }),
      expect: { reasonCode: 0 },
    },
    {
      kind: 'http.request',
      t: 20,
      device: 'Meter H1',
      method: 'POST',
      path: '/api/v1/{token}/telemetry',
      body: '{"pressure":1012}',
      contentType: 'application/json',
      expect: { status: 200 },
    },
    {
      kind: 'expect.alarm',
      t: 40,
      device: 'Thermostat T1',
      event: 'raised',
      type: 'High Temperature',
      severity: 'MAJOR',
    },
    {
      kind: 'rpc.request',
      t: 50,
      device: 'Thermostat T1',
      id: 1,
      origin: 'server',
      method: 'setMode',
      params: { mode: 'eco' },
    },
    {
      kind: 'mqtt.publish',
      t: 55,
      device: 'Thermostat T1',
      direction: 'out',
      topic: 'v1/devices/me/rpc/request/1',
      qos: 1,
      payload: '{"method":"setMode","params":{"mode":"eco"}}',
    },
    {
      kind: 'mqtt.publish',
      t: 60,
      device: 'Thermostat T1',
      direction: 'in',
      topic: 'v1/devices/me/rpc/response/1',
      qos: 1,
      payload: '{"mode":"eco","ok":true}',
    },
    {
      kind: 'rpc.response',
      t: 60,
      device: 'Thermostat T1',
      id: 1,
      response: { mode: 'eco', ok: true, at: 1 },
    },
    {
      kind: 'rpc.request',
      t: 70,
      device: 'Sensor S1',
      id: 'r7',
      origin: 'server',
      method: 'getState',
    },
    { kind: 'rpc.response', t: 80, device: 'Sensor S1', id: 'r7', response: { state: 'on' } },
    {
      kind: 'expect.rpc',
      t: 90,
      device: 'Thermostat T1',
      id: 1,
      method: 'setMode',
      status: 'SUCCESSFUL',
      response: { mode: 'eco', ok: true, at: 1 },
      ignore: ['response.at'],
    },
    {
      kind: 'expect.rpc',
      t: 91,
      device: 'Sensor S1',
      id: 'r7',
      method: 'getState',
      response: { state: 'on' },
    },
    {
      kind: 'attributes.update',
      t: 100,
      device: 'Thermostat T1',
      scope: 'SHARED_SCOPE',
      values: { targetTemperature: 21 },
    },
    telemetry(150, 'Thermostat T1', { temperature: 20.04, mode: 'eco' }),
    { kind: 'expect.alarm', t: 200, device: 'Thermostat T1', event: 'cleared', type: 'High Temperature' },
    {
      kind: 'expect.latest',
      t: 210,
      device: 'Thermostat T1',
      values: { temperature: 20, mode: 'eco' },
      tolerance: { temperature: 0.1 },
    },
    { kind: 'expect.latest', t: 220, device: 'Sensor S1', values: { humidity: 40.2 } },
    { kind: 'expect.latest', t: 230, device: 'Meter H1', values: { pressure: 1012 } },
    { kind: 'mqtt.disconnect', t: 290, device: 'Thermostat T1' },
    { kind: 'end', t: 300, records: 26, truncated: false },
  ];
}

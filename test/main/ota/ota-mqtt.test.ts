import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { okJson, useSharedPlatform } from '../api/api-kit.ts';
import {
  attributes,
  closeAll,
  connect,
  Inbox,
  loggedIn,
  newDevice,
  publishOk,
  subscribeOk,
  timeseries,
  type Api,
} from '../transport/mqtt/mqtt-kit.ts';
import { otaChecksum } from '../../../main/platform/ota-checksum.ts';
import { assignFirmware, createPackage, defaultProfileId, packageBytes } from './ota-kit.ts';

const FW_KEYS = 'fw_checksum,fw_checksum_algorithm,fw_size,fw_title,fw_version';
const CHUNK = 4096;

/**
 * thingsboard-python-client-sdk's firmware flow (tb_device_mqtt.py), replayed with the mqtt package:
 * subscribe to shared attribute updates and answers and to v2/fw/response/+, request the fw_* shared
 * attributes, and on a new fw_title / fw_version send current_fw_* with fw_state DOWNLOADING, fetch the
 * chunks, then DOWNLOADED, VERIFIED (or FAILED with fw_error), UPDATING, UPDATED.
 */
async function sdkDevice(a: Api, accessToken: string) {
  const client = await connect(a.p.urls.mqtt, accessToken, 4, { clientId: '', clean: true });
  const inbox = new Inbox(client);
  await subscribeOk(client, 'v1/devices/me/attributes');
  await subscribeOk(client, 'v1/devices/me/attributes/response/+');
  await subscribeOk(client, 'v2/fw/response/+');
  return { client, inbox };
}

async function download(client: MqttClient, inbox: Inbox, requestId: number, size: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let chunk = 0; chunk * CHUNK < size; chunk++) {
    await publishOk(client, `v2/fw/request/${requestId}/chunk/${chunk}`, String(CHUNK));
    const m = await inbox.take(`v2/fw/response/${requestId}/chunk/${chunk}`);
    parts.push(m.payload);
  }
  return Buffer.concat(parts);
}

describe('OTA over MQTT as the Python SDK runs it', () => {
  const platform = useSharedPlatform();
  const api = loggedIn(platform);
  afterEach(closeAll);

  it('gets the shared attributes, downloads the chunks, verifies the checksum and reports the states in order', async () => {
    const a = await api();
    const profileId = await defaultProfileId(a.p, a.token);
    const data = packageBytes(50_000, 21);
    const pkg = await createPackage(a.p, a.token, { profileId, title: 'sdk-fw', version: '2.0', data });
    const device = await newDevice(a, 'ota-sdk-device');
    const { client, inbox } = await sdkDevice(a, device.accessToken);
    // SDK start: request the firmware attributes (none yet)
    await publishOk(client, 'v1/devices/me/attributes/request/1', { sharedKeys: FW_KEYS });
    expect((await inbox.take('v1/devices/me/attributes/response/1')).json).toEqual({});

    await assignFirmware(a.p, a.token, device.id.id, pkg.id.id);
    const update = (
      await inbox.take(
        'v1/devices/me/attributes',
        (j) => (j as Record<string, unknown>).fw_title !== undefined,
      )
    ).json as Record<string, unknown>;
    expect(update).toMatchObject({
      fw_title: 'sdk-fw',
      fw_version: '2.0',
      fw_size: 50_000,
      fw_checksum_algorithm: 'SHA256',
      fw_checksum: otaChecksum('SHA256', data),
    });
    expect(await attributes(a, device.id.id, 'SHARED_SCOPE')).toMatchObject({
      fw_title: 'sdk-fw',
      fw_version: '2.0',
    });
    const latest = await timeseries(a, device.id.id, { keys: 'fw_state,target_fw_title,target_fw_version' });
    expect(latest.fw_state![0]!.value).toBe('INITIATED');
    expect(latest.target_fw_title![0]!.value).toBe('sdk-fw');

    const current = { current_fw_title: 'initial', current_fw_version: '1.0' };
    const state = (fw_state: string, extra: Record<string, unknown> = {}) =>
      publishOk(client, 'v1/devices/me/telemetry', { ...current, fw_state, ...extra });
    await state('DOWNLOADING');
    const received = await download(client, inbox, 1, update.fw_size as number);
    expect(received.equals(data)).toBe(true);
    await state('DOWNLOADED');
    expect(otaChecksum('SHA256', received)).toBe(update.fw_checksum);
    await state('VERIFIED');
    await state('UPDATING');
    Object.assign(current, { current_fw_title: 'sdk-fw', current_fw_version: '2.0' });
    await state('UPDATED');

    const history = await timeseries(a, device.id.id, {
      keys: 'fw_state',
      startTs: 0,
      endTs: Date.now() + 1000,
      orderBy: 'ASC',
      limit: 100,
    });
    expect(history.fw_state!.map((p) => p.value)).toEqual([
      'QUEUED',
      'INITIATED',
      'DOWNLOADING',
      'DOWNLOADED',
      'VERIFIED',
      'UPDATING',
      'UPDATED',
    ]);
    const rollout = await okJson<{ devices: number; states: Record<string, number> }>(
      a.p.http(`/api/sandboard/otaPackage/${pkg.id.id}/rollout`, { token: a.token }),
    );
    expect(rollout.devices).toBe(1);
    expect(rollout.states.UPDATED).toBe(1);
  });

  it('a wrong checksum ends in FAILED with its reason; past the end and oversized chunks get ThingsBoard answers', async () => {
    const a = await api();
    const profileId = await defaultProfileId(a.p, a.token);
    const data = packageBytes(10_000, 33);
    const pkg = await createPackage(a.p, a.token, {
      profileId,
      title: 'bad-fw',
      version: '1',
      data,
      algorithm: 'MD5',
    });
    const device = await newDevice(a, 'ota-bad-device');
    const { client, inbox } = await sdkDevice(a, device.accessToken);
    await subscribeOk(client, 'v2/fw/error');

    // no package yet: ThingsBoard's error topic
    await publishOk(client, 'v2/fw/request/1/chunk/0', String(CHUNK));
    expect((await inbox.take('v2/fw/error')).payload.toString()).toBe('NOT_FOUND');

    await assignFirmware(a.p, a.token, device.id.id, pkg.id.id);
    const update = (
      await inbox.take(
        'v1/devices/me/attributes',
        (j) => (j as Record<string, unknown>).fw_title !== undefined,
      )
    ).json as Record<string, unknown>;
    // a chunk past the end is answered with an empty payload
    await publishOk(client, 'v2/fw/request/2/chunk/99', String(CHUNK));
    expect((await inbox.take('v2/fw/response/2/chunk/99')).payload.length).toBe(0);
    // a chunk size above the largest payload the transport takes
    await publishOk(client, 'v2/fw/request/3/chunk/0', String(1024 * 1024 * 1024));
    expect((await inbox.take('v2/fw/error')).payload.toString()).toBe('PAYLOAD_TOO_LARGE');
    // an empty payload is the whole package in one message
    await publishOk(client, 'v2/fw/request/4/chunk/0', '');
    expect((await inbox.take('v2/fw/response/4/chunk/0')).payload.equals(data)).toBe(true);

    const received = await download(client, inbox, 5, update.fw_size as number);
    received[17] = received[17]! ^ 0xff; // corrupted on the way
    const verified = otaChecksum('MD5', received) === update.fw_checksum;
    expect(verified).toBe(false);
    await publishOk(client, 'v1/devices/me/telemetry', {
      fw_state: 'FAILED',
      fw_error: 'Checksum verification failed',
    });
    const latest = await timeseries(a, device.id.id, { keys: 'fw_state,fw_error' });
    expect(latest.fw_state![0]!.value).toBe('FAILED');
    const rollout = await okJson<{ states: Record<string, number>; failures: Record<string, number> }>(
      a.p.http(`/api/sandboard/otaPackage/${pkg.id.id}/rollout`, { token: a.token }),
    );
    expect(rollout.states.FAILED).toBe(1);
    expect(rollout.failures).toEqual({ 'Checksum verification failed': 1 });
  });

  it('removing the package removes the shared attributes', async () => {
    const a = await api();
    const profileId = await defaultProfileId(a.p, a.token);
    const pkg = await createPackage(a.p, a.token, {
      profileId,
      title: 'gone-fw',
      version: '1',
      data: packageBytes(100),
    });
    const device = await newDevice(a, 'ota-gone-device');
    const { inbox } = await sdkDevice(a, device.accessToken);
    await assignFirmware(a.p, a.token, device.id.id, pkg.id.id);
    await inbox.take(
      'v1/devices/me/attributes',
      (j) => (j as Record<string, unknown>).fw_title !== undefined,
    );
    await assignFirmware(a.p, a.token, device.id.id, null);
    const deleted = (
      await inbox.take('v1/devices/me/attributes', (j) => Array.isArray((j as { deleted?: unknown }).deleted))
    ).json as { deleted: string[] };
    expect(deleted.deleted).toEqual(
      expect.arrayContaining(['fw_title', 'fw_version', 'fw_checksum', 'fw_size']),
    );
    expect(await attributes(a, device.id.id, 'SHARED_SCOPE')).not.toHaveProperty('fw_title');
  });
});

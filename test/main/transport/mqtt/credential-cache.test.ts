import { afterEach, describe, expect, it } from 'vitest';
import { okEmpty, okJson, useSharedPlatform } from '../../api/api-kit.ts';
import { MqttCredentialCache } from '../../../../main/platform/mqtt-credential-cache.ts';
import { closeAll, connect, newDevice, publishOk, refusedConnect, type Api } from './mqtt-kit.ts';

const BAD_CREDENTIALS = 4;

describe('CONNECT credentials found once are remembered, and forgotten the moment they change', () => {
  const platform = useSharedPlatform();
  let counter = 0;
  let token: string | undefined;
  afterEach(closeAll);

  async function api(): Promise<Api> {
    const p = platform();
    token ??= await p.login();
    return { p, token };
  }
  const name = (label: string) => `cred-cache-${++counter}-${label}`;

  /** Connects and disconnects a few times (one client id, then others), so the credentials are remembered. */
  async function reconnectTwice(url: string, username: string): Promise<void> {
    for (let i = 0; i < 2; i++)
      await (await connect(url, username, 4, { clientId: username })).endAsync(true);
    for (let i = 0; i < 2; i++) await (await connect(url, username, 4)).endAsync(true);
  }

  it('refuses a replaced token right after the credentials call answers, and takes the new one', async () => {
    const a = await api();
    const device = await newDevice(a, name('rekeyed'));
    const other = await newDevice(a, name('untouched'));
    const url = a.p.urls.mqtt;
    await reconnectTwice(url, device.accessToken);
    await reconnectTwice(url, other.accessToken);

    const credentials = await okJson<Record<string, unknown>>(
      a.p.http(`/api/device/${device.id.id}/credentials`, { token: a.token }),
    );
    await okJson(
      a.p.http('/api/device/credentials', {
        method: 'POST',
        token: a.token,
        json: { ...credentials, credentialsId: `${device.accessToken}-v2` },
      }),
    );
    expect(await refusedConnect(url, device.accessToken, 4)).toBe(BAD_CREDENTIALS);
    await expect(connect(url, device.accessToken, 4, { clientId: device.accessToken })).rejects.toMatchObject(
      {
        code: BAD_CREDENTIALS,
      },
    );
    await publishOk(await connect(url, `${device.accessToken}-v2`, 4), 'v1/devices/me/telemetry', { t: 1 });
    await publishOk(await connect(url, other.accessToken, 4), 'v1/devices/me/telemetry', { t: 1 });
  });

  it('refuses a token once its device switched to MQTT basic credentials, and checks the password', async () => {
    const a = await api();
    const device = await newDevice(a, name('basic'));
    const url = a.p.urls.mqtt;
    await reconnectTwice(url, device.accessToken);
    const credentials = await okJson<Record<string, unknown>>(
      a.p.http(`/api/device/${device.id.id}/credentials`, { token: a.token }),
    );
    const basic = {
      clientId: `cid-${device.accessToken}`,
      userName: `u-${device.accessToken}`,
      password: 'pw',
    };
    await okJson(
      a.p.http('/api/device/credentials', {
        method: 'POST',
        token: a.token,
        json: { ...credentials, credentialsType: 'MQTT_BASIC', credentialsValue: JSON.stringify(basic) },
      }),
    );
    expect(await refusedConnect(url, device.accessToken, 4)).toBe(BAD_CREDENTIALS);
    const ok = { clientId: basic.clientId, password: basic.password };
    await (await connect(url, basic.userName, 4, ok)).endAsync(true);
    await (await connect(url, basic.userName, 4, ok)).endAsync(true);
    // the same client id and user name with another password is not the remembered CONNECT
    await expect(connect(url, basic.userName, 4, { ...ok, password: 'wrong' })).rejects.toMatchObject({
      code: BAD_CREDENTIALS,
    });
  });

  it('refuses the token of a deleted device at once', async () => {
    const a = await api();
    const device = await newDevice(a, name('deleted'));
    await reconnectTwice(a.p.urls.mqtt, device.accessToken);
    await okEmpty(a.p.http(`/api/device/${device.id.id}`, { method: 'DELETE', token: a.token }));
    expect(await refusedConnect(a.p.urls.mqtt, device.accessToken, 4)).toBe(BAD_CREDENTIALS);
  });

  it('refuses a token a bulk import replaced', async () => {
    const a = await api();
    const device = await newDevice(a, name('imported'));
    await reconnectTwice(a.p.urls.mqtt, device.accessToken);
    await okJson(
      a.p.http('/api/device/bulk_import', {
        method: 'POST',
        token: a.token,
        json: {
          file: `${device.name},${device.accessToken}-bulk`,
          mapping: { columns: [{ type: 'NAME' }, { type: 'ACCESS_TOKEN' }], header: false, update: true },
        },
      }),
    );
    expect(await refusedConnect(a.p.urls.mqtt, device.accessToken, 4)).toBe(BAD_CREDENTIALS);
    await (await connect(a.p.urls.mqtt, `${device.accessToken}-bulk`, 4)).endAsync(true);
  });
});

describe('the CONNECT credential cache', () => {
  it('holds at most its bound, dropping the oldest, and keeps no secret as a key', () => {
    const cache = new MqttCredentialCache(3);
    const keys = ['a', 'b', 'c', 'd'].map((t) => MqttCredentialCache.key('client', t, ''));
    keys.forEach((k, i) => cache.remember(k, `device-${i}`));
    expect(cache.size).toBe(3);
    expect(cache.deviceId(keys[0]!)).toBeUndefined();
    expect(cache.deviceId(keys[3]!)).toBe('device-3');
    expect(keys.some((k) => k.includes('client'))).toBe(false);
    cache.clear();
    expect(cache.deviceId(keys[3]!)).toBeUndefined();
  });
});

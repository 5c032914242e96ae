import { describe, expect, it } from 'vitest';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { createDevice, expectTbError, okEmpty, okJson, withLoginPair, type DeviceJson } from './api-kit.ts';

describe('persistence across a restart', () => {
  it('keeps devices, credentials, telemetry, attributes, API keys, sessions and logouts', async () => {
    const dataDir = tempDir();
    const first = withLoginPair(await startTestPlatform({ dataDir }));
    expect(first.seededLogins.map((l) => l.email).sort()).toEqual([
      'customer@thingsboard.org',
      'tenant@thingsboard.org',
    ]);
    const token = await first.login();
    const loggedOut = await first.loginPair();
    const device = await createDevice(first, token, { name: 'survivor', label: 'keeps' }, 'survivor-token');
    const url = `/api/plugins/telemetry/DEVICE/${device.id.id}`;
    const ts = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    await okEmpty(
      first.http(`${url}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: [
          { ts, values: { temperature: 20.5, state: 'on' } },
          { ts: ts + 1000, values: { temperature: 21 } },
        ],
      }),
    );
    await okEmpty(
      first.http(`${url}/SERVER_SCOPE`, { method: 'POST', token, json: { serial: 'SN-9', ratio: 0.25 } }),
    );
    await okEmpty(first.http(`${url}/SHARED_SCOPE`, { method: 'POST', token, json: { target: 22 } }));
    const attributesBefore = await okJson(first.http(`${url}/values/attributes`, { token }));
    const key = await okJson<{ value: string }>(
      first.http('/api/apiKey', { method: 'POST', token, json: { description: 'survives' } }),
    );
    await okEmpty(first.http('/api/auth/logout', { method: 'POST', token: loggedOut.token }));
    await first.stop();

    const second = await startTestPlatform({ dataDir });
    expect(second.seededLogins).toEqual([]);
    // the signing key and the session are kept: the token from before the restart still works
    const again = await okJson<DeviceJson>(second.http(`/api/device/${device.id.id}`, { token }));
    expect(again).toEqual(device);
    expect(await okJson(second.http('/api/tenant/devices?deviceName=survivor', { token }))).toEqual(device);
    expect(
      (
        await okJson<{ credentialsId: string }>(
          second.http(`/api/device/${device.id.id}/credentials`, { token }),
        )
      ).credentialsId,
    ).toBe('survivor-token');
    expect(await okJson(second.http(`${url}/values/timeseries`, { token }))).toEqual({
      temperature: [{ ts: ts + 1000, value: '21' }],
      state: [{ ts, value: 'on' }],
    });
    expect(
      await okJson(
        second.http(
          `${url}/values/timeseries?keys=temperature&startTs=${ts}&endTs=${ts + 1500}&orderBy=ASC`,
          {
            token,
          },
        ),
      ),
    ).toEqual({
      temperature: [
        { ts, value: '20.5' },
        { ts: ts + 1000, value: '21' },
      ],
    });
    expect(await okJson(second.http(`${url}/values/attributes`, { token }))).toEqual(attributesBefore);
    expect((await second.http('/api/auth/user', { apiKey: key.value })).status).toBe(200);
    await expectTbError(await second.http('/api/auth/user', { token: loggedOut.token }), 401, 10);
    await expectTbError(
      await second.http('/api/auth/token', {
        method: 'POST',
        json: { refreshToken: loggedOut.refreshToken },
      }),
      401,
      10,
    );
    // and it keeps taking writes
    await okEmpty(second.http(`${url}/timeseries/ANY`, { method: 'POST', token, json: { temperature: 23 } }));
    const latest = await okJson<Record<string, { value: string }[]>>(
      second.http(`${url}/values/timeseries?keys=temperature`, { token }),
    );
    expect(latest.temperature![0]!.value).toBe('23');
  });

  it('keeps a changed password and outdates the tokens from before the change', async () => {
    const dataDir = tempDir();
    const first = await startTestPlatform({ dataDir });
    const old = await first.login();
    await okJson(
      first.http('/api/auth/changePassword', {
        method: 'POST',
        token: old,
        json: { currentPassword: 'tenant', newPassword: 'a-better-password' },
      }),
    );
    await first.stop();
    const second = await startTestPlatform({ dataDir });
    expect((await second.http('/api/auth/user', { token: old })).status).toBe(401);
    await expectTbError(
      await second.http('/api/auth/login', {
        method: 'POST',
        json: { username: 'tenant@thingsboard.org', password: 'tenant' },
      }),
      401,
      10,
    );
    const fresh = await second.login('tenant@thingsboard.org', 'a-better-password');
    expect((await second.http('/api/auth/user', { token: fresh })).status).toBe(200);
  });
});

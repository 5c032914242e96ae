import type { MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { expectTbError, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import {
  attributes,
  closeAll,
  connect,
  deviceByName,
  expectRefused,
  Inbox,
  newDevice,
  publishOk,
  refusedConnect,
  subscribe,
  subscribeOk,
  timeseries,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt/mqtt-kit.ts';

interface Profile {
  id: { id: string };
  name: string;
  provisionType: string;
  provisionDeviceKey: string | null;
  profileData: { provisionConfiguration: { type: string; provisionDeviceSecret: string | null } };
}

let profileCounter = 0;

/** A device profile with a provisioning strategy, saved through the ThingsBoard REST API. */
async function provisioningProfile(
  p: ApiPlatform,
  token: string,
  provisionType: 'ALLOW_CREATE_NEW_DEVICES' | 'CHECK_PRE_PROVISIONED_DEVICES' | 'DISABLED',
): Promise<Profile & { key: string; secret: string }> {
  const n = ++profileCounter;
  const key = `key-${process.pid}-${n}`;
  const secret = `secret-${n}`;
  const profile = await okJson<Profile>(
    p.http('/api/deviceProfile', {
      method: 'POST',
      token,
      json: {
        name: `prov-${provisionType}-${n}`,
        type: 'DEFAULT',
        transportType: 'DEFAULT',
        provisionType,
        provisionDeviceKey: key,
        profileData: {
          configuration: { type: 'DEFAULT' },
          transportConfiguration: { type: 'DEFAULT' },
          provisionConfiguration: { type: provisionType, provisionDeviceSecret: secret },
        },
      },
    }),
  );
  return { ...profile, key, secret };
}

const NOT_FOUND = { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' };
const FAILURE = { errorMsg: 'Failed to provision device!', status: 'FAILURE' };

describe('device profiles keep the provisioning fields as ThingsBoard does', () => {
  const platform = useSharedPlatform();

  it('saves and returns provisionType, provisionDeviceKey and the secret; the key is unique', async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'ALLOW_CREATE_NEW_DEVICES');
    expect(profile.provisionType).toBe('ALLOW_CREATE_NEW_DEVICES');
    expect(profile.provisionDeviceKey).toBe(profile.key);
    expect(profile.profileData.provisionConfiguration).toEqual({
      type: 'ALLOW_CREATE_NEW_DEVICES',
      provisionDeviceSecret: profile.secret,
    });
    const read = await okJson<Profile>(p.http(`/api/deviceProfile/${profile.id.id}`, { token }));
    expect(read.provisionDeviceKey).toBe(profile.key);

    const dup = await p.http('/api/deviceProfile', {
      method: 'POST',
      token,
      json: {
        name: `dup-key-${process.pid}`,
        provisionType: 'CHECK_PRE_PROVISIONED_DEVICES',
        provisionDeviceKey: profile.key,
        profileData: {
          provisionConfiguration: { type: 'CHECK_PRE_PROVISIONED_DEVICES', provisionDeviceSecret: 's' },
        },
      },
    });
    await expectTbError(dup, 400, 30, 'Device profile with such provision device key already exists!');

    const noSecret = await p.http('/api/deviceProfile', {
      method: 'POST',
      token,
      json: {
        name: `no-secret-${process.pid}`,
        provisionType: 'ALLOW_CREATE_NEW_DEVICES',
        provisionDeviceKey: 'k-no-secret',
      },
    });
    await expectTbError(noSecret, 400, 30, 'provisionDeviceSecret');
  });
});

describe('provisioning over HTTP (POST /api/v1/provision)', () => {
  const platform = useSharedPlatform();
  const provision = (p: ApiPlatform, body: unknown) =>
    fetch(`${p.urls.http}/api/v1/provision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('creates a device with a generated access token, which then posts telemetry', async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'ALLOW_CREATE_NEW_DEVICES');
    const name = `http-prov-${process.pid}`;
    const answer = await okJson<{ credentialsValue: string; credentialsType: string; status: string }>(
      provision(p, {
        deviceName: name,
        provisionDeviceKey: profile.key,
        provisionDeviceSecret: profile.secret,
      }),
    );
    expect(answer).toEqual({
      credentialsValue: expect.stringMatching(/^\w{20}$/),
      credentialsType: 'ACCESS_TOKEN',
      status: 'SUCCESS',
    });
    const api: Api = { p, token };
    const device = await deviceByName(api, name);
    expect(device.type).toBe(profile.name);
    expect(await attributes(api, device.id.id, 'SERVER_SCOPE')).toMatchObject({
      provisionState: 'provisioned',
    });
    const res = await fetch(`${p.urls.http}/api/v1/${answer.credentialsValue}/telemetry`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"provisioned":1}',
    });
    expect(res.status).toBe(200);
    expect((await timeseries(api, device.id.id)).provisioned![0]!.value).toBe(1);

    // The same name again: the device exists, ALLOW_CREATE_NEW_DEVICES refuses it.
    expect(
      await okJson(
        provision(p, {
          deviceName: name,
          provisionDeviceKey: profile.key,
          provisionDeviceSecret: profile.secret,
        }),
      ),
    ).toEqual(FAILURE);
  });

  it('answers NOT_FOUND for a wrong secret, an unknown key, a missing secret and a DISABLED profile', async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'ALLOW_CREATE_NEW_DEVICES');
    const disabled = await provisioningProfile(p, token, 'DISABLED');
    const ask = (body: unknown) => okJson(provision(p, body));
    expect(
      await ask({ deviceName: 'x1', provisionDeviceKey: profile.key, provisionDeviceSecret: 'wrong' }),
    ).toEqual(NOT_FOUND);
    expect(
      await ask({
        deviceName: 'x2',
        provisionDeviceKey: 'no-such-key',
        provisionDeviceSecret: profile.secret,
      }),
    ).toEqual(NOT_FOUND);
    expect(
      await ask({ deviceName: 'x3', provisionDeviceKey: profile.key, provisionDeviceSecret: '' }),
    ).toEqual(NOT_FOUND);
    expect(
      await ask({
        deviceName: 'x4',
        provisionDeviceKey: disabled.key,
        provisionDeviceSecret: disabled.secret,
      }),
    ).toEqual(NOT_FOUND);
    const api: Api = { p, token };
    for (const n of ['x1', 'x2', 'x3', 'x4']) {
      const res = await p.http(`/api/tenant/devices?deviceName=${n}`, { token: api.token });
      expect(res.status).toBe(404);
    }
  });

  it("CHECK_PRE_PROVISIONED_DEVICES hands out an existing device's credentials once, and refuses unknown names", async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'CHECK_PRE_PROVISIONED_DEVICES');
    const created = await okJson<{ id: { id: string } }>(
      p.http('/api/device?accessToken=pre-token-1', {
        method: 'POST',
        token,
        json: {
          name: `pre-${process.pid}`,
          deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id },
        },
      }),
    );
    expect(created.id.id).toBeTruthy();
    const body = {
      deviceName: `pre-${process.pid}`,
      provisionDeviceKey: profile.key,
      provisionDeviceSecret: profile.secret,
    };
    expect(await okJson(provision(p, body))).toEqual({
      credentialsValue: 'pre-token-1',
      credentialsType: 'ACCESS_TOKEN',
      status: 'SUCCESS',
    });
    expect(await okJson(provision(p, body))).toEqual(FAILURE);
    expect(await okJson(provision(p, { ...body, deviceName: 'never-created' }))).toEqual(FAILURE);
    // A device of another profile is not pre-provisioned in this one.
    await newDevice({ p, token }, `other-profile-${process.pid}`);
    expect(await okJson(provision(p, { ...body, deviceName: `other-profile-${process.pid}` }))).toEqual(
      FAILURE,
    );
  });

  it('answers 400 for a malformed provision payload', async () => {
    const p = platform();
    await expectTbError(await provision(p, 'not json'), 400, 31, 'Invalid JSON');
    await expectTbError(await provision(p, [1]), 400, 31);
    await expectTbError(
      await provision(p, { deviceName: 'a', provisionDeviceSecret: 's' }),
      400,
      31,
      'provisionDeviceKey',
    );
    await expectTbError(
      await provision(p, {
        provisionDeviceKey: 'k',
        provisionDeviceSecret: 's',
        credentialsType: 'X509_CERTIFICATE',
      }),
      400,
      31,
      'X509_CERTIFICATE',
    );
  });
});

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))('provisioning over %s', (_n, version) => {
  const platform = useSharedPlatform();
  afterEach(closeAll);
  let counter = 0;

  /** ProvisionClient of the Python SDK: user name "provision", subscribe, publish the request. */
  async function provisionOverMqtt(
    p: ApiPlatform,
    request: unknown,
  ): Promise<{ client: MqttClient; answer: unknown }> {
    const client = await connect(p.urls.mqtt, 'provision', version, { clientId: '' });
    const inbox = new Inbox(client);
    await subscribeOk(client, '/provision/response');
    await publishOk(client, '/provision/request', request);
    return { client, answer: (await inbox.take('/provision/response')).json };
  }

  it('provisions a device with MQTT basic credentials that then connects with them', async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'ALLOW_CREATE_NEW_DEVICES');
    const n = ++counter;
    const creds = { clientId: `cid-${version}-${n}`, username: `user-${version}-${n}`, password: 'pw' };
    const { answer } = await provisionOverMqtt(p, {
      deviceName: `mqtt-basic-${version}-${n}`,
      provisionDeviceKey: profile.key,
      provisionDeviceSecret: profile.secret,
      credentialsType: 'MQTT_BASIC',
      ...creds,
    });
    expect(answer).toEqual({
      credentialsValue: { clientId: creds.clientId, userName: creds.username, password: 'pw' },
      credentialsType: 'MQTT_BASIC',
      status: 'SUCCESS',
    });
    const device = await connect(p.urls.mqtt, creds.username, version, {
      clientId: creds.clientId,
      password: 'pw',
    });
    await publishOk(device, 'v1/devices/me/telemetry', { basic: true });
    const api: Api = { p, token };
    const row = await deviceByName(api, `mqtt-basic-${version}-${n}`);
    expect((await timeseries(api, row.id.id)).basic![0]!.value).toBe(true);
    // Wrong password, wrong client id: refused like a bad token.
    expect(await refusedConnect(p.urls.mqtt, creds.username, version)).toBe(version === 5 ? 0x86 : 4);
    const bad = await connect(p.urls.mqtt, creds.username, version, {
      clientId: creds.clientId,
      password: 'nope',
    }).then(
      () => 'accepted',
      (err: { code?: number }) => err.code,
    );
    expect(bad).toBe(version === 5 ? 0x86 : 4);
  });

  it('provisions a gateway with a chosen access token, and refuses a second device of that name', async () => {
    const p = platform();
    const token = await p.login();
    const profile = await provisioningProfile(p, token, 'ALLOW_CREATE_NEW_DEVICES');
    const n = ++counter;
    const name = `prov-gw-${version}-${n}`;
    const request = {
      deviceName: name,
      provisionDeviceKey: profile.key,
      provisionDeviceSecret: profile.secret,
      credentialsType: 'ACCESS_TOKEN',
      token: `prov-token-${version}-${n}`,
      gateway: true,
    };
    expect((await provisionOverMqtt(p, request)).answer).toEqual({
      credentialsValue: `prov-token-${version}-${n}`,
      credentialsType: 'ACCESS_TOKEN',
      status: 'SUCCESS',
    });
    const device = await deviceByName({ p, token }, name);
    expect(device.additionalInfo).toMatchObject({ gateway: true });
    expect((await provisionOverMqtt(p, request)).answer).toEqual(FAILURE);
    expect(
      (await provisionOverMqtt(p, { ...request, deviceName: 'x', provisionDeviceSecret: 'bad' })).answer,
    ).toEqual(NOT_FOUND);
  });

  it('a provisioning session may only ask for credentials', async () => {
    const p = platform();
    const client = await connect(p.urls.mqtt, 'provision', version);
    expect(await subscribe(client, 'v1/devices/me/attributes')).toEqual([version === 5 ? 0x87 : 0x80]);
    await expectRefused(client, version, 'v1/devices/me/telemetry', { a: 1 }, 0x90);
    const again = await connect(p.urls.mqtt, 'provision', version);
    await expectRefused(again, version, '/provision/request', 'not json', 0x99);
    const third = await connect(p.urls.mqtt, 'provision', version);
    const outcome = await expectRefused(third, version, '/provision/request', { deviceName: 'no-key' }, 0x83);
    if (version === 5) expect(outcome.reasonString ?? '').toMatch(/provisionDeviceKey/);
  });
});

import { describe, expect, it } from 'vitest';
import { parseProvisionRequest, ProvisionThrottledError } from '../../../main/platform/provisioning.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { expectTbError, okJson, withLoginPair } from '../api/api-kit.ts';
import { closeAll, connect, Inbox, publishOk, subscribeOk } from './mqtt/mqtt-kit.ts';

const FAILURE = { errorMsg: 'Failed to provision device!', status: 'FAILURE' };
const NOT_FOUND = { errorMsg: 'Provision data was not found!', status: 'NOT_FOUND' };

/**
 * Guessing a profile's provision secret is throttled as guessing a password is: after
 * SANDBOARD_LOGIN_MAX_FAILURES wrong secrets, the address (and the provision key) get 429 over HTTP and
 * FAILURE over MQTT, even with the right secret, until the window has passed.
 */
describe('provisioning with wrong secrets', () => {
  it('is throttled per address and per provision key', async () => {
    const p = withLoginPair(await startTestPlatform({ loginMaxFailures: 3, loginWindowMs: 600_000 }));
    const token = await p.login();
    const profile = (key: string) => ({
      name: `throttle-${key}`,
      type: 'DEFAULT',
      transportType: 'DEFAULT',
      provisionType: 'ALLOW_CREATE_NEW_DEVICES',
      provisionDeviceKey: key,
      profileData: {
        configuration: { type: 'DEFAULT' },
        transportConfiguration: { type: 'DEFAULT' },
        provisionConfiguration: { type: 'ALLOW_CREATE_NEW_DEVICES', provisionDeviceSecret: 'right' },
      },
    });
    await okJson(p.http('/api/deviceProfile', { method: 'POST', token, json: profile('guessed') }));
    const provision = (deviceName: string, secret: string) =>
      p.http('/api/v1/provision', {
        method: 'POST',
        json: { deviceName, provisionDeviceKey: 'guessed', provisionDeviceSecret: secret },
      });

    for (let i = 0; i < 3; i++) expect(await okJson(provision('guess', `wrong-${i}`))).toEqual(NOT_FOUND);
    const refused = await provision('guess', 'right');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    await expectTbError(refused, 429, 33, 'Too many failed provision requests');

    // over MQTT too, from the same address: ThingsBoard's FAILURE answer, and no device
    const session = await connect(p.urls.mqtt, 'provision', 4);
    const inbox = new Inbox(session);
    await subscribeOk(session, '/provision/response');
    await publishOk(session, '/provision/request', {
      deviceName: 'guess',
      provisionDeviceKey: 'guessed',
      provisionDeviceSecret: 'right',
    });
    expect((await inbox.take('/provision/response')).json).toEqual(FAILURE);
    await expectTbError(await p.http('/api/tenant/devices?deviceName=guess', { token }), 404, 32);
    await closeAll();

    // the key is throttled for every address; another key is not
    const request = parseProvisionRequest({
      deviceName: 'elsewhere',
      provisionDeviceKey: 'guessed',
      provisionDeviceSecret: 'right',
    });
    await expect(p.services.provisioning.provision(request, '192.0.2.7')).rejects.toThrow(
      ProvisionThrottledError,
    );
    await okJson(p.http('/api/deviceProfile', { method: 'POST', token, json: profile('other') }));
    const other = await p.services.provisioning.provision(
      { ...request, provisionDeviceKey: 'other' },
      '192.0.2.7',
    );
    expect(other.response).toMatchObject({ status: 'SUCCESS' });
  });
});

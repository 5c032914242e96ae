import { afterEach, describe, expect, it } from 'vitest';
import { okEmpty, okJson, useSharedPlatform } from '../../api/api-kit.ts';
import {
  closeAll,
  closedByBroker,
  connect,
  Inbox,
  newDevice,
  publishOk,
  refusedConnect,
  saveShared,
  subscribe,
  subscribeOk,
  VERSIONS,
  versionName,
  type Api,
} from './mqtt-kit.ts';

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))('MQTT broker over %s', (_name, version) => {
  const platform = useSharedPlatform();
  let counter = 0;
  let token: string | undefined;
  afterEach(closeAll);

  async function api(): Promise<Api> {
    const p = platform();
    token ??= await p.login();
    return { p, token };
  }
  const name = (label: string) => `broker-v${version}-${++counter}-${label}`;
  /** CONNACK "bad user name or password": 0x86 on MQTT 5, return code 4 on 3.1.1 */
  const badCredentials = version === 5 ? 0x86 : 4;

  it('takes the device access token as the username and refuses anything else at CONNACK', async () => {
    const a = await api();
    const device = await newDevice(a, name('auth'));
    const url = a.p.urls.mqtt;
    expect(await refusedConnect(url, 'not-a-token', version)).toBe(badCredentials);
    expect(await refusedConnect(url, undefined, version)).toBe(badCredentials);
    expect(await refusedConnect(url, device.accessToken.toUpperCase(), version)).toBe(badCredentials);
    const client = await connect(url, device.accessToken, version, { password: 'ignored' });
    await publishOk(client, 'v1/devices/me/telemetry', { ok: 1 });
  });

  it('lets several connections share one token, each with its own subscriptions', async () => {
    const a = await api();
    const device = await newDevice(a, name('shared'));
    const attrs = await connect(a.p.urls.mqtt, device.accessToken, version);
    const rpc = await connect(a.p.urls.mqtt, device.accessToken, version);
    const attrsInbox = new Inbox(attrs);
    const rpcInbox = new Inbox(rpc);
    await subscribeOk(attrs, 'v1/devices/me/attributes');
    await subscribeOk(rpc, 'v1/devices/me/rpc/request/+');

    await saveShared(a, device.id.id, { color: 'red' });
    expect((await attrsInbox.take('v1/devices/me/attributes')).json).toEqual({ color: 'red' });
    const call = a.p.http(`/api/rpc/twoway/${device.id.id}`, {
      method: 'POST',
      token: a.token,
      json: { method: 'blink', params: { times: 2 } },
    });
    const request = await rpcInbox.take(/^v1\/devices\/me\/rpc\/request\/\d+$/);
    expect(request.json).toEqual({ method: 'blink', params: { times: 2 } });
    await publishOk(rpc, request.topic.replace('request', 'response'), { done: true });
    expect(await okJson(call)).toEqual({ done: true });
    // Each got only what it subscribed to.
    expect(attrsInbox.all.map((m) => m.topic)).toEqual(['v1/devices/me/attributes']);
    expect(rpcInbox.all.map((m) => m.topic)).toEqual([request.topic]);
  });

  it('a second connection with the same client id takes the session over', async () => {
    const a = await api();
    const device = await newDevice(a, name('takeover'));
    const clientId = `takeover-${version}-${counter}`;
    const first = await connect(a.p.urls.mqtt, device.accessToken, version, { clientId });
    await subscribeOk(first, 'v1/devices/me/attributes');
    const firstClosed = closedByBroker(first);
    const second = await connect(a.p.urls.mqtt, device.accessToken, version, { clientId });
    const reason = await firstClosed;
    if (version === 5) expect(reason).toBe(0x8e); // session taken over
    const inbox = new Inbox(second);
    await subscribeOk(second, 'v1/devices/me/attributes');
    await saveShared(a, device.id.id, { x: 1 });
    expect((await inbox.take('v1/devices/me/attributes')).json).toEqual({ x: 1 });
    await publishOk(second, 'v1/devices/me/telemetry', { alive: true });
  });

  it('grants only the subscriptions a device may have', async () => {
    const a = await api();
    const device = await newDevice(a, name('subs'));
    const client = await connect(a.p.urls.mqtt, device.accessToken, version);
    const refused = version === 5 ? 0x87 : 0x80;
    expect(
      await subscribe(
        client,
        'v1/devices/me/attributes',
        'v1/devices/me/attributes/response/+',
        'v1/devices/me/rpc/request/+',
        'v1/devices/me/rpc/response/+',
      ),
    ).toEqual([1, 1, 1, 1]);
    for (const topic of [
      '#',
      'v1/#',
      'v1/devices/me/telemetry',
      'v1/devices/other/attributes',
      'v1/gateway/rpc',
      'v1/gateway/attributes',
    ]) {
      expect(await subscribe(client, topic), topic).toEqual([refused]);
    }
    // A refused subscription leaves the connection and the granted ones working.
    const inbox = new Inbox(client);
    await saveShared(a, device.id.id, { after: 1 });
    expect((await inbox.take('v1/devices/me/attributes')).json).toEqual({ after: 1 });
  });

  it('a gateway may subscribe to the gateway topics besides its own device topics', async () => {
    const a = await api();
    const gateway = await newDevice(a, name('gw'), { gateway: true });
    const client = await connect(a.p.urls.mqtt, gateway.accessToken, version);
    expect(
      await subscribe(
        client,
        'v1/gateway/attributes',
        'v1/gateway/attributes/response',
        'v1/gateway/rpc',
        'v1/devices/me/attributes',
        'v1/gateway/telemetry',
        'v1/gateway/#',
      ),
    ).toEqual([1, 1, 1, 1, ...(version === 5 ? [0x87, 0x87] : [0x80, 0x80])]);
  });

  it('routes nothing between clients: one device never sees what another publishes', async () => {
    const a = await api();
    const listener = await newDevice(a, name('listener'));
    const talker = await newDevice(a, name('talker'));
    const l = await connect(a.p.urls.mqtt, listener.accessToken, version);
    const t = await connect(a.p.urls.mqtt, talker.accessToken, version);
    const inbox = new Inbox(l);
    await subscribeOk(l, 'v1/devices/me/attributes', 'v1/devices/me/rpc/request/+');
    await publishOk(t, 'v1/devices/me/attributes', { from: 'talker' });
    await publishOk(t, 'v1/devices/me/rpc/request/1', { method: 'm', params: {} });
    await saveShared(a, listener.id.id, { control: true });
    const control = await inbox.take('v1/devices/me/attributes');
    expect(control.json).toEqual({ control: true });
    expect(inbox.before(control)).toEqual([]);
  });

  it('closes the sessions of a device when it is deleted or its token changes', async () => {
    const a = await api();
    const deleted = await newDevice(a, name('deleted'));
    const rekeyed = await newDevice(a, name('rekeyed'));
    const c1 = await connect(a.p.urls.mqtt, deleted.accessToken, version);
    const c2 = await connect(a.p.urls.mqtt, rekeyed.accessToken, version);
    const closed1 = closedByBroker(c1);
    const closed2 = closedByBroker(c2);
    await okEmpty(a.p.http(`/api/device/${deleted.id.id}`, { method: 'DELETE', token: a.token }));
    await closed1;
    const credentials = await okJson<Record<string, unknown>>(
      a.p.http(`/api/device/${rekeyed.id.id}/credentials`, { token: a.token }),
    );
    await okJson(
      a.p.http('/api/device/credentials', {
        method: 'POST',
        token: a.token,
        json: { ...credentials, credentialsId: `${rekeyed.accessToken}-new` },
      }),
    );
    await closed2;
    expect(await refusedConnect(a.p.urls.mqtt, deleted.accessToken, version)).toBe(badCredentials);
    expect(await refusedConnect(a.p.urls.mqtt, rekeyed.accessToken, version)).toBe(badCredentials);
    const again = await connect(a.p.urls.mqtt, `${rekeyed.accessToken}-new`, version);
    await publishOk(again, 'v1/devices/me/telemetry', { back: 1 });
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import {
  CUSTOMER,
  expectTbError,
  NULL_UUID,
  okJson,
  useSharedPlatform,
  waitUntilPast,
  type DeviceJson,
} from '../../api/api-kit.ts';
import {
  closeAll,
  connect,
  deviceByName,
  Inbox,
  newDevice,
  publishOk,
  subscribeOk,
  VERSIONS,
  versionName,
  loggedIn,
  type Api,
} from './mqtt-kit.ts';

const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))(
  'server-side RPC over %s',
  (_name, version) => {
    const platform = useSharedPlatform();
    let counter = 0;
    afterEach(closeAll);
    const api = loggedIn(platform);
    const rpc = (a: Api, kind: 'oneway' | 'twoway', deviceId: string, body: Record<string, unknown>) =>
      a.p.http(`/api/rpc/${kind}/${deviceId}`, { method: 'POST', token: a.token, json: body });

    async function device() {
      const a = await api();
      const d = await newDevice(a, `rpc-v${version}-${++counter}`);
      const client = await connect(a.p.urls.mqtt, d.accessToken, version);
      const inbox = new Inbox(client);
      return { a, d, client, inbox };
    }

    it('correlates concurrent two-way calls with their answers by request id', async () => {
      const { a, d, client, inbox } = await device();
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      const calls = ['first', 'second', 'third'].map((method) =>
        rpc(a, 'twoway', d.id.id, { method, params: { n: method.length } }),
      );
      const requests = [];
      for (let i = 0; i < 3; i++) requests.push(await inbox.take(RPC_REQUEST));
      const byMethod = new Map(
        requests.map((r) => [(r.json as { method: string }).method, RPC_REQUEST.exec(r.topic)![1]!]),
      );
      expect(requests.map((r) => r.json)).toEqual(
        expect.arrayContaining([
          { method: 'first', params: { n: 5 } },
          { method: 'second', params: { n: 6 } },
          { method: 'third', params: { n: 5 } },
        ]),
      );
      expect(new Set(byMethod.values()).size).toBe(3);
      // Answered in reverse order; each caller gets its own answer.
      for (const method of ['third', 'second', 'first']) {
        await publishOk(client, `v1/devices/me/rpc/response/${byMethod.get(method)}`, { answer: method });
      }
      const answers = await Promise.all(calls.map((c) => okJson(c)));
      expect(answers).toEqual([{ answer: 'first' }, { answer: 'second' }, { answer: 'third' }]);
    });

    it('holds a call until the device subscribes, and answers 504 when no answer comes in time', async () => {
      const { a, d, client, inbox } = await device();
      const waiting = rpc(a, 'twoway', d.id.id, { method: 'late', params: {}, timeout: 5000 });
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      const request = await inbox.take(RPC_REQUEST);
      expect(request.json).toEqual({ method: 'late', params: {} });
      // An answer that is not JSON is passed on as text.
      await publishOk(client, request.topic.replace('request', 'response'), 'plain text answer');
      const answered = await waiting;
      expect(answered.status).toBe(200);
      expect(await answered.text()).toBe('plain text answer');

      const started = Date.now();
      const timedOut = await rpc(a, 'twoway', d.id.id, { method: 'ignored', params: {}, timeout: 300 });
      await expectTbError(timedOut, 504, 2, /did not answer/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      const ignored = await inbox.take(RPC_REQUEST, (j) => (j as { method: string }).method === 'ignored');
      // A late answer, and one for an id nobody waits for, are accepted and dropped.
      await publishOk(client, ignored.topic.replace('request', 'response'), { late: true });
      await publishOk(client, 'v1/devices/me/rpc/response/999999', { stray: true });
    });

    it('answers a timeout with the status a client asks for (X-Sandboard-Timeout-Status), and sends once', async () => {
      const { a, d, client, inbox } = await device();
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      const asked = await a.p.http(`/api/rpc/twoway/${d.id.id}`, {
        method: 'POST',
        token: a.token,
        headers: { 'x-sandboard-timeout-status': '408' },
        json: { method: 'unanswered', params: {}, timeout: 300 },
      });
      await expectTbError(asked, 408, 2, /did not answer the RPC request within 300 ms/);
      expect(inbox.all.map((m) => m.json)).toEqual([{ method: 'unanswered', params: {} }]);
      await expectTbError(
        await a.p.http(`/api/rpc/twoway/${d.id.id}`, {
          method: 'POST',
          token: a.token,
          headers: { 'x-sandboard-timeout-status': 'soon' },
          json: { method: 'bad header', params: {} },
        }),
        400,
        31,
        /x-sandboard-timeout-status/,
      );
    });

    it('one-way calls return once delivered, and 504 when no session takes them', async () => {
      const { a, d, client, inbox } = await device();
      await expectTbError(
        await rpc(a, 'oneway', d.id.id, { method: 'nobody', params: {}, timeout: 300 }),
        504,
        2,
        /did not take/,
      );
      await subscribeOk(client, 'v1/devices/me/rpc/request/+');
      const res = await rpc(a, 'oneway', d.id.id, { method: 'setLed', params: { on: true } });
      expect(res.status).toBe(200);
      expect((await inbox.take(RPC_REQUEST)).json).toEqual({ method: 'setLed', params: { on: true } });
      // The undelivered call was dropped at its timeout: it never arrives.
      expect(inbox.all.map((m) => (m.json as { method: string }).method)).toEqual(['setLed']);
    });

    it('routes calls for devices behind a gateway, correlating by device and id', async () => {
      const a = await api();
      const gw = await newDevice(a, `rpc-gw-v${version}-${++counter}`, { gateway: true });
      const client = await connect(a.p.urls.mqtt, gw.accessToken, version);
      const inbox = new Inbox(client);
      await subscribeOk(client, 'v1/gateway/rpc');
      const [nameA, nameB] = [`${gw.name}-a`, `${gw.name}-b`];
      await publishOk(client, 'v1/gateway/connect', { device: nameA });
      await publishOk(client, 'v1/gateway/connect', { device: nameB });
      const [devA, devB] = [await deviceByName(a, nameA), await deviceByName(a, nameB)];

      const callA = rpc(a, 'twoway', devA.id.id, { method: 'read', params: { reg: 1 } });
      const reqA = await inbox.take('v1/gateway/rpc', (j) => (j as { device: string }).device === nameA);
      const callB = rpc(a, 'twoway', devB.id.id, { method: 'read', params: { reg: 2 } });
      const reqB = await inbox.take('v1/gateway/rpc', (j) => (j as { device: string }).device === nameB);
      type GwRpc = { device: string; data: { id: number; method: string; params: unknown } };
      const [ja, jb] = [reqA.json as GwRpc, reqB.json as GwRpc];
      expect(ja).toEqual({
        device: nameA,
        data: { id: expect.any(Number) as number, method: 'read', params: { reg: 1 } },
      });
      expect(jb.data.params).toEqual({ reg: 2 });
      // Ids are per device (both are the first call of their device): the device name tells them apart.
      expect(jb.data.id).toBe(ja.data.id);
      await publishOk(client, 'v1/gateway/rpc', { device: nameB, id: jb.data.id, data: { value: 'B' } });
      await publishOk(client, 'v1/gateway/rpc', { device: nameA, id: ja.data.id, data: { value: 'A' } });
      expect(await okJson(callA)).toEqual({ value: 'A' });
      expect(await okJson(callB)).toEqual({ value: 'B' });

      // One-way through the gateway; after a disconnect the device is out of reach.
      expect((await rpc(a, 'oneway', devA.id.id, { method: 'reset', params: {} })).status).toBe(200);
      expect(
        (await inbox.take('v1/gateway/rpc', (j) => (j as GwRpc).data.method === 'reset')).json,
      ).toMatchObject({ device: nameA });
      await publishOk(client, 'v1/gateway/disconnect', { device: nameA });
      await expectTbError(
        await rpc(a, 'oneway', devA.id.id, { method: 'gone', params: {}, timeout: 300 }),
        504,
        2,
      );
    });
  },
);

describe.each(VERSIONS.map((v) => [versionName(v), v] as const))('claiming over %s', (_name, version) => {
  const platform = useSharedPlatform();
  let counter = 0;
  let tenant: string | undefined;
  let customer: string | undefined;
  afterEach(closeAll);

  async function api(): Promise<Api & { customer: string; customerId: string }> {
    const p = platform();
    tenant ??= await p.login();
    customer ??= await p.login(CUSTOMER.username, CUSTOMER.password);
    const me = await okJson<{ customerId: { id: string } }>(p.http('/api/auth/user', { token: customer }));
    return { p, token: tenant, customer, customerId: me.customerId.id };
  }

  const claim = (a: Api & { customer: string }, name: string, secretKey?: string) =>
    a.p.http(`/api/customer/device/${encodeURIComponent(name)}/claim`, {
      method: 'POST',
      token: a.customer,
      json: secretKey === undefined ? {} : { secretKey },
    });

  /** ThingsBoard answers a failed claim with the bare enum as JSON: "FAILURE" or "CLAIMED", with quotes. */
  async function expectOutcome(res: Response, status: number, outcome: string) {
    const text = await res.text();
    expect(res.status, text).toBe(status);
    if (status === 200) expect((JSON.parse(text) as { response: string }).response).toBe(outcome);
    else {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(JSON.parse(text)).toBe(outcome);
    }
  }

  it('a device announces a claim; the customer claims it with the key, once', async () => {
    const a = await api();
    const d = await newDevice(a, `claim-v${version}-${++counter}`);
    const client = await connect(a.p.urls.mqtt, d.accessToken, version);
    await expectOutcome(await claim(a, d.name, 'k1'), 400, 'FAILURE'); // nothing announced yet
    await publishOk(client, 'v1/devices/me/claim', { secretKey: 'k1', durationMs: 60_000 });
    // A repeat does not replace a live claim.
    await publishOk(client, 'v1/devices/me/claim', { secretKey: 'other', durationMs: 60_000 });
    await expectOutcome(await claim(a, d.name, 'wrong'), 400, 'FAILURE');
    await expectOutcome(await claim(a, d.name, 'other'), 400, 'FAILURE');
    const ok = await okJson<{ response: string; device: DeviceJson }>(claim(a, d.name, 'k1'));
    expect(ok.response).toBe('SUCCESS');
    expect(ok.device.customerId.id).toBe(a.customerId);
    expect(ok.device.name).toBe(d.name);
    await expectOutcome(await claim(a, d.name, 'k1'), 400, 'CLAIMED');

    // An owned device's claim messages change nothing; reclaiming gives it back to the tenant.
    await publishOk(client, 'v1/devices/me/claim', { secretKey: 'k2' });
    const back = await okJson<DeviceJson>(
      a.p.http(`/api/customer/device/${d.name}/claim`, { method: 'DELETE', token: a.customer }),
    );
    expect(back.customerId.id).toBe(NULL_UUID);
    await expectOutcome(await claim(a, d.name, 'k2'), 400, 'FAILURE');
    await publishOk(client, 'v1/devices/me/claim', { secretKey: 'k3' });
    expect((await okJson<{ response: string }>(claim(a, d.name, 'k3'))).response).toBe('SUCCESS');
  });

  it('a claim expires after its duration; an empty message means an empty key', async () => {
    const a = await api();
    const d = await newDevice(a, `claim-exp-v${version}-${++counter}`);
    const client = await connect(a.p.urls.mqtt, d.accessToken, version);
    const sent = Date.now();
    await publishOk(client, 'v1/devices/me/claim', { secretKey: 'short', durationMs: 50 });
    await waitUntilPast(sent + 60);
    await expectOutcome(await claim(a, d.name, 'short'), 400, 'FAILURE');
    // The expired claim no longer blocks a new one; no payload = key "" and the default duration.
    await publishOk(client, 'v1/devices/me/claim', '');
    expect((await okJson<{ response: string }>(claim(a, d.name))).response).toBe('SUCCESS');
  });

  it('a gateway announces claims for the devices behind it', async () => {
    const a = await api();
    const gw = await newDevice(a, `claim-gw-v${version}-${++counter}`, { gateway: true });
    const client = await connect(a.p.urls.mqtt, gw.accessToken, version);
    const [nameA, nameB] = [`${gw.name}-a`, `${gw.name}-b`];
    await publishOk(client, 'v1/gateway/claim', {
      [nameA]: { secretKey: 'ka', durationMs: 60_000 },
      [nameB]: {},
    });
    await expectOutcome(await claim(a, nameA, ''), 400, 'FAILURE');
    expect((await okJson<{ response: string }>(claim(a, nameA, 'ka'))).response).toBe('SUCCESS');
    expect((await okJson<{ response: string }>(claim(a, nameB, ''))).response).toBe('SUCCESS');
    expect((await deviceByName(a, nameB)).customerId.id).toBe(a.customerId);
  });

  it('only customer users claim, and an unknown device name is 404', async () => {
    const a = await api();
    const res = await a.p.http('/api/customer/device/x/claim', {
      method: 'POST',
      token: a.token,
      json: { secretKey: '' },
    });
    await expectTbError(res, 403, 20);
    await expectTbError(await claim(a, `no-such-device-${version}`, ''), 404, 32);
  });
});

import { once } from 'node:events';
import { createConnection } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { NODE_TYPES } from '../../../../shared/rule-engine.ts';
import {
  CUSTOMER,
  NULL_UUID,
  expectTbError,
  okEmpty,
  okJson,
  useSharedPlatform,
  type ApiPlatform,
  type EntityRef,
  type PageJson,
} from '../../api/api-kit.ts';
import {
  closeAll,
  connect,
  deviceByName,
  Inbox,
  newDevice,
  publishOk,
  subscribeOk,
  loggedIn,
  type Api,
} from './mqtt-kit.ts';

interface RpcJson {
  id: EntityRef;
  createdTime: number;
  tenantId: EntityRef;
  deviceId: EntityRef;
  expirationTime: number;
  request: {
    id: string;
    oneway: boolean;
    expirationTime: number;
    body: { method: string; params: string };
    persisted: boolean;
    retries: number | null;
  };
  response: unknown;
  status: string;
  additionalInfo: unknown;
}

const RPC_REQUEST = /^v1\/devices\/me\/rpc\/request\/(\d+)$/;

/**
 * A device that never acknowledges: an MQTT 3.1.1 client of its own (mqtt.js stops reading when a
 * message is not acknowledged) that connects, subscribes with QoS 1 and keeps every PUBLISH without a PUBACK.
 */
async function silentDevice(url: string, username: string, filter: string) {
  const { hostname, port } = new URL(url);
  const socket = createConnection({ host: hostname, port: Number(port) });
  onTestFinished(() => void socket.destroy());
  await once(socket, 'connect');
  const str = (text: string) => {
    const b = Buffer.from(text, 'utf8');
    return Buffer.concat([Buffer.from([b.length >> 8, b.length & 0xff]), b]);
  };
  const packet = (type: number, body: Buffer) => {
    const len: number[] = [];
    let n = body.length;
    do {
      len.push((n % 128) | (n >= 128 ? 0x80 : 0));
      n = Math.floor(n / 128);
    } while (n > 0);
    return Buffer.concat([Buffer.from([type, ...len]), body]);
  };
  const topics: string[] = [];
  const types: number[] = [];
  const arrived: (() => void)[] = [];
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      let length = 0;
      let i = 1;
      for (let mul = 1; i < buffer.length; i++, mul *= 128) {
        length += (buffer[i]! & 0x7f) * mul;
        if ((buffer[i]! & 0x80) === 0) break;
      }
      if (i >= buffer.length || buffer.length < i + 1 + length) return;
      const type = buffer[0]! >> 4;
      const body = buffer.subarray(i + 1, i + 1 + length);
      buffer = buffer.subarray(i + 1 + length);
      types.push(type);
      if (type === 3) topics.push(body.subarray(2, 2 + body.readUInt16BE(0)).toString('utf8'));
      arrived.splice(0).forEach((f) => f());
    }
  });
  const next = (test: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no such packet; got types ${types.join(',')}`)),
        5_000,
      );
      const check = () => (test() ? (clearTimeout(timer), resolve()) : arrived.push(check));
      check();
    });
  socket.write(
    packet(
      0x10,
      Buffer.concat([
        str('MQTT'),
        Buffer.from([4, 0x82, 0, 60]),
        str(`silent-${process.pid}`),
        str(username),
      ]),
    ),
  );
  await next(() => types.includes(2)); // CONNACK
  socket.write(packet(0x82, Buffer.concat([Buffer.from([0, 1]), str(filter), Buffer.from([1])])));
  await next(() => types.includes(9)); // SUBACK
  return { topics, publishes: (n: number) => next(() => topics.length >= n) };
}

/** The status changes of persistent RPCs, as the platform announces them once they are on disk. */
function watchStatuses(p: ApiPlatform) {
  const seen = new Map<string, string[]>();
  const waiters: { id: string; status: string; resolve: () => void }[] = [];
  const listener = (e: { id: string; status: string }) => {
    seen.set(e.id, [...(seen.get(e.id) ?? []), e.status]);
    for (const w of waiters.filter((x) => x.id === e.id && x.status === e.status)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  p.services.ctx.events.on('rpcStatus', listener);
  return {
    of: (id: string) => seen.get(id) ?? [],
    reached(id: string, status: string): Promise<void> {
      if (this.of(id).includes(status)) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`${id} did not reach ${status}; it went ${this.of(id).join(' -> ')}`)),
          5_000,
        );
        waiters.push({ id, status, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    stop: () => p.services.ctx.events.off('rpcStatus', listener),
  };
}

describe('persistent RPC', () => {
  const platform = useSharedPlatform({ rpcDeliveryTimeoutMs: 300 });
  let counter = 0;
  afterEach(closeAll);
  const api = loggedIn(platform);
  const send = (a: Api, kind: 'oneway' | 'twoway', deviceId: string, body: Record<string, unknown>) =>
    okJson<{ rpcId: string }>(
      a.p.http(`/api/rpc/${kind}/${deviceId}`, {
        method: 'POST',
        token: a.token,
        json: { persistent: true, ...body },
      }),
    );
  const get = (a: Api, rpcId: string, t = a.token) =>
    okJson<RpcJson>(a.p.http(`/api/rpc/persistent/${rpcId}`, { token: t }));

  it('keeps a request for an offline device, delivers it when the device subscribes, and records each state', async () => {
    const a = await api();
    const watch = watchStatuses(a.p);
    // the rule engine gets RPC_QUEUED ... RPC_SUCCESSFUL: watch the root chain's first node
    const root = (
      await okJson<PageJson<{ id: EntityRef; root: boolean }>>(
        a.p.http('/api/ruleChains?pageSize=10&page=0', { token: a.token }),
      )
    ).data.find((c) => c.root)!;
    type Metadata = { nodes: { id: EntityRef; type: string; debugMode?: boolean }[] };
    const switchOf = (m: Metadata) => m.nodes.find((n) => n.type === NODE_TYPES.msgTypeSwitch)!;
    const metadata = await okJson<Metadata>(
      a.p.http(`/api/ruleChain/${root.id.id}/metadata`, { token: a.token }),
    );
    const switchNode = switchOf(metadata);
    switchNode.debugMode = true;
    // the chain as saved (its new version) is what the debug mode is switched off in, at the end
    const debugging = await okJson<Metadata>(
      a.p.http(`/api/ruleChain/${root.id.id}/metadata`, { method: 'POST', token: a.token, json: metadata }),
    );

    const d = await newDevice(a, `prpc-${++counter}`);
    const before = Date.now();
    const { rpcId } = await send(a, 'twoway', d.id.id, {
      method: 'setMode',
      params: { mode: 'eco' },
      timeout: 60_000,
      retries: 2,
      additionalInfo: { ticket: 7 },
    });
    expect(rpcId).toMatch(/^[0-9a-f-]{36}$/);
    const queued = await get(a, rpcId);
    expect(queued).toMatchObject({
      id: { entityType: 'RPC', id: rpcId },
      deviceId: { entityType: 'DEVICE', id: d.id.id },
      tenantId: { entityType: 'TENANT' },
      status: 'QUEUED',
      response: null,
      additionalInfo: { ticket: 7 },
      request: {
        id: rpcId,
        oneway: false,
        persisted: true,
        retries: 2,
        body: { method: 'setMode', params: '{"mode":"eco"}' },
      },
    });
    expect(queued.expirationTime).toBeGreaterThanOrEqual(before + 60_000);
    expect(queued.request.expirationTime).toBe(queued.expirationTime);

    const client = await connect(a.p.urls.mqtt, d.accessToken, 5);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    const request = await inbox.take(RPC_REQUEST);
    expect(request.json).toEqual({ method: 'setMode', params: { mode: 'eco' } });
    await watch.reached(rpcId, 'DELIVERED'); // the device's PUBACK
    await publishOk(client, request.topic.replace('request', 'response'), { applied: true });
    await watch.reached(rpcId, 'SUCCESSFUL');
    expect(watch.of(rpcId)).toEqual(['QUEUED', 'SENT', 'DELIVERED', 'SUCCESSFUL']);
    expect(await get(a, rpcId)).toMatchObject({ status: 'SUCCESSFUL', response: { applied: true } });

    const events = await okJson<
      { direction: string; relation: string | null; msgType: string; data: unknown; originator: string }[]
    >(a.p.http(`/api/ruleNode/${switchNode.id.id}/debugEvents`, { token: a.token }));
    const mine = events.filter(
      (e) => e.originator === `DEVICE ${d.id.id}` && e.direction === 'OUT' && e.msgType.startsWith('RPC_'),
    );
    expect(mine.map((e) => [e.msgType, e.relation])).toEqual([
      ['RPC_QUEUED', 'RPC Queued'],
      ['RPC_CALL_FROM_SERVER_TO_DEVICE', 'RPC Request to Device'],
      ['RPC_SENT', 'RPC Sent'],
      ['RPC_DELIVERED', 'RPC Delivered'],
      ['RPC_SUCCESSFUL', 'RPC Successful'],
    ]);
    expect(mine.at(-1)!.data).toMatchObject({
      id: { id: rpcId },
      status: 'SUCCESSFUL',
      response: { applied: true },
    });
    switchOf(debugging).debugMode = false;
    await okJson(
      a.p.http(`/api/ruleChain/${root.id.id}/metadata`, { method: 'POST', token: a.token, json: debugging }),
    );

    const page = await okJson<PageJson<RpcJson>>(
      a.p.http(`/api/rpc/persistent/device/${d.id.id}?pageSize=10&page=0&rpcStatus=successful`, {
        token: a.token,
      }),
    );
    expect(page.data.map((r) => r.id.id)).toEqual([rpcId]);
    expect(
      (
        await okJson<PageJson<RpcJson>>(
          a.p.http(`/api/rpc/persistent/device/${d.id.id}?pageSize=10&page=0&rpcStatus=QUEUED`, {
            token: a.token,
          }),
        )
      ).totalElements,
    ).toBe(0);
    await expectTbError(
      await a.p.http(`/api/rpc/persistent/device/${d.id.id}?pageSize=10&page=0&rpcStatus=DELETED`, {
        token: a.token,
      }),
      400,
      31,
    );
    watch.stop();
  });

  it('one-way requests end DELIVERED: at the PUBACK with QoS 1, at once with QoS 0, and through a gateway', async () => {
    const a = await api();
    const watch = watchStatuses(a.p);
    const d = await newDevice(a, `prpc-${++counter}`);
    const client = await connect(a.p.urls.mqtt, d.accessToken, 4);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    const { rpcId } = await send(a, 'oneway', d.id.id, { method: 'blink', params: {}, timeout: 30_000 });
    await inbox.take(RPC_REQUEST);
    await watch.reached(rpcId, 'DELIVERED');
    expect(watch.of(rpcId)).toEqual(['QUEUED', 'SENT', 'DELIVERED']);

    const q0 = await newDevice(a, `prpc-${++counter}`);
    const c0 = await connect(a.p.urls.mqtt, q0.accessToken, 4);
    await new Promise<void>((resolve, reject) =>
      c0.subscribe('v1/devices/me/rpc/request/+', { qos: 0 }, (err) => (err ? reject(err) : resolve())),
    );
    const zero = await send(a, 'oneway', q0.id.id, { method: 'blink', timeout: 30_000 });
    await watch.reached(zero.rpcId, 'DELIVERED');
    expect(watch.of(zero.rpcId)).toEqual(['QUEUED', 'DELIVERED']);

    const gw = await newDevice(a, `prpc-gw-${++counter}`, { gateway: true });
    const gc = await connect(a.p.urls.mqtt, gw.accessToken, 5);
    const gInbox = new Inbox(gc);
    await subscribeOk(gc, 'v1/gateway/rpc');
    const child = `${gw.name}-child`;
    await publishOk(gc, 'v1/gateway/connect', { device: child });
    const childDevice = await deviceByName(a, child);
    const viaGw = await send(a, 'twoway', childDevice.id.id, {
      method: 'read',
      params: { reg: 4 },
      timeout: 30_000,
    });
    const gwRequest = (await gInbox.take('v1/gateway/rpc')).json as { device: string; data: { id: number } };
    expect(gwRequest).toMatchObject({ device: child, data: { method: 'read', params: { reg: 4 } } });
    await watch.reached(viaGw.rpcId, 'DELIVERED');
    await publishOk(gc, 'v1/gateway/rpc', { device: child, id: gwRequest.data.id, data: { value: 42 } });
    await watch.reached(viaGw.rpcId, 'SUCCESSFUL');
    expect(await get(a, viaGw.rpcId)).toMatchObject({ status: 'SUCCESSFUL', response: { value: 42 } });
    watch.stop();
  });

  it('a device that never acknowledges: TIMEOUT, re-sent while retries last, then FAILED', async () => {
    const a = await api();
    const watch = watchStatuses(a.p);
    const d = await newDevice(a, `prpc-${++counter}`);
    const silent = await silentDevice(a.p.urls.mqtt, d.accessToken, 'v1/devices/me/rpc/request/+');
    const { rpcId } = await send(a, 'twoway', d.id.id, { method: 'stuck', timeout: 60_000, retries: 1 });
    await watch.reached(rpcId, 'FAILED');
    expect(watch.of(rpcId)).toEqual(['QUEUED', 'SENT', 'TIMEOUT', 'SENT', 'FAILED']);
    await silent.publishes(2); // sent, then sent again once
    expect(silent.topics).toHaveLength(2);
    expect(new Set(silent.topics).size).toBe(1); // the same request id both times
    expect(await get(a, rpcId)).toMatchObject({
      status: 'FAILED',
      response: {
        error: 'There was a Timeout and all retry attempts have been exhausted. Retry attempts set: 1',
      },
    });
    watch.stop();
  });

  it('expires a request nobody takes in time, and refuses expirations too far ahead', async () => {
    const a = await api();
    const watch = watchStatuses(a.p);
    const d = await newDevice(a, `prpc-${++counter}`);
    const { rpcId } = await send(a, 'twoway', d.id.id, { method: 'late', expirationTime: Date.now() + 300 });
    await watch.reached(rpcId, 'EXPIRED');
    expect(watch.of(rpcId)).toEqual(['QUEUED', 'EXPIRED']);
    // a device that connects afterwards gets nothing
    const client = await connect(a.p.urls.mqtt, d.accessToken, 4);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    await send(a, 'oneway', d.id.id, { method: 'marker', timeout: 30_000 });
    expect((await inbox.take(RPC_REQUEST)).json).toMatchObject({ method: 'marker' });
    expect(inbox.all.map((m) => (m.json as { method: string }).method)).toEqual(['marker']);
    await expectTbError(
      await a.p.http(`/api/rpc/twoway/${d.id.id}`, {
        method: 'POST',
        token: a.token,
        json: { method: 'far', persistent: true, expirationTime: Date.now() + 25 * 86_400_000 },
      }),
      400,
      30,
      'expirationTime',
    );
    watch.stop();
  });

  it('deletes a request before it is delivered; customers read the requests of their devices only', async () => {
    const a = await api();
    const d = await newDevice(a, `prpc-${++counter}`);
    const { rpcId } = await send(a, 'twoway', d.id.id, { method: 'deleteMe', timeout: 60_000 });
    const customer = await a.p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(await a.p.http(`/api/rpc/persistent/${rpcId}`, { token: customer }), 403, 20);
    await expectTbError(
      await a.p.http(`/api/rpc/persistent/device/${d.id.id}?pageSize=5&page=0`, { token: customer }),
      403,
      20,
    );
    const me = await okJson<{ customerId: EntityRef }>(a.p.http('/api/auth/user', { token: customer }));
    await okJson(
      a.p.http(`/api/customer/${me.customerId.id}/device/${d.id.id}`, { method: 'POST', token: a.token }),
    );
    expect((await get(a, rpcId, customer)).status).toBe('QUEUED');
    await expectTbError(
      await a.p.http(`/api/rpc/persistent/${rpcId}`, { method: 'DELETE', token: customer }),
      403,
      20,
    );

    await okEmpty(a.p.http(`/api/rpc/persistent/${rpcId}`, { method: 'DELETE', token: a.token }));
    await expectTbError(await a.p.http(`/api/rpc/persistent/${rpcId}`, { token: a.token }), 404, 32);
    await expectTbError(
      await a.p.http(`/api/rpc/persistent/${rpcId}`, { method: 'DELETE', token: a.token }),
      404,
      32,
    );
    await expectTbError(await a.p.http(`/api/rpc/persistent/${NULL_UUID}`, { token: a.token }), 404, 32);
    const client = await connect(a.p.urls.mqtt, d.accessToken, 4);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    await send(a, 'oneway', d.id.id, { method: 'marker', timeout: 30_000 });
    await inbox.take(RPC_REQUEST);
    expect(inbox.all.map((m) => (m.json as { method: string }).method)).toEqual(['marker']);
  });
});

describe("RPC v1 (ThingsBoard's /api/plugins/rpc)", () => {
  const platform = useSharedPlatform();
  afterEach(closeAll);

  it('answers like v2, with 409 when no session takes a request and 408 when the device does not answer', async () => {
    const p = platform();
    const a = { p, token: await p.login() };
    const d = await newDevice(a, 'rpc-v1-device');
    const v1 = (kind: string, body: Record<string, unknown>) =>
      p.http(`/api/plugins/rpc/${kind}/${d.id.id}`, { method: 'POST', token: a.token, json: body });
    await expectTbError(
      await v1('twoway', { method: 'nobody', params: {}, timeout: 300 }),
      409,
      2,
      /did not take/,
    );
    await expectTbError(await v1('oneway', { method: 'nobody', params: {}, timeout: 300 }), 409, 2);
    const client = await connect(p.urls.mqtt, d.accessToken, 4);
    const inbox = new Inbox(client);
    await subscribeOk(client, 'v1/devices/me/rpc/request/+');
    await expectTbError(
      await v1('twoway', { method: 'silent', params: {}, timeout: 300 }),
      408,
      2,
      /did not answer/,
    );
    const call = v1('twoway', { method: 'getTime', params: {} });
    const request = await inbox.take(RPC_REQUEST, (j) => (j as { method: string }).method === 'getTime');
    await publishOk(client, request.topic.replace('request', 'response'), { time: 1 });
    expect(await okJson(call)).toEqual({ time: 1 });
    const oneway = await v1('oneway', { method: 'blink', params: {} });
    expect(oneway.status).toBe(200);
    const persistent = await okJson<{ rpcId: string }>(
      v1('twoway', { method: 'later', persistent: true, timeout: 60_000 }),
    );
    expect(persistent.rpcId).toMatch(/^[0-9a-f-]{36}$/);
  });
});

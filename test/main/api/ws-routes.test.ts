import { describe, expect, it } from 'vitest';
import type { WsServerMessage } from '../../../shared/ws-messages.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { CUSTOMER, createDevice, okEmpty, withLoginPair, type ApiPlatform } from './api-kit.ts';

/** A WebSocket client that queues what it receives and lets a test await the next matching message. */
class Client {
  readonly ws: WebSocket;
  private readonly received: WsServerMessage[] = [];
  private waiters: { match: (m: WsServerMessage) => boolean; resolve: (m: WsServerMessage) => void }[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(url: string) {
    this.ws = new WebSocket(url);
    this.ws.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as WsServerMessage;
      const waiter = this.waiters.find((w) => w.match(message));
      if (waiter) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        waiter.resolve(message);
      } else this.received.push(message);
    });
    this.closed = new Promise((resolve) =>
      this.ws.addEventListener('close', (e) => resolve({ code: e.code, reason: e.reason })),
    );
  }

  opened(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.ws.addEventListener('open', () => resolve());
      this.ws.addEventListener('error', () => reject(new Error('WebSocket failed to open')));
    });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  next<T extends WsServerMessage['type']>(
    type: T,
    where: (m: Extract<WsServerMessage, { type: T }>) => boolean = () => true,
  ): Promise<Extract<WsServerMessage, { type: T }>> {
    const match = (m: WsServerMessage) =>
      m.type === type && where(m as Extract<WsServerMessage, { type: T }>);
    const i = this.received.findIndex(match);
    if (i >= 0)
      return Promise.resolve(this.received.splice(i, 1)[0] as Extract<WsServerMessage, { type: T }>);
    return new Promise((resolve) =>
      this.waiters.push({ match, resolve: (m) => resolve(m as Extract<WsServerMessage, { type: T }>) }),
    );
  }

  has(type: WsServerMessage['type']): boolean {
    return this.received.some((m) => m.type === type);
  }
}

function wsUrl(p: ApiPlatform, query = ''): string {
  return `${p.urls.http.replace(/^http/, 'ws')}/api/ws${query}`;
}

async function connect(p: ApiPlatform, token: string): Promise<Client> {
  const client = new Client(wsUrl(p));
  await client.opened();
  client.send({ type: 'auth', token });
  await client.next('ready');
  return client;
}

describe('live WebSocket /api/ws', () => {
  it('refuses a connection without a valid token', async () => {
    const p = withLoginPair(await startTestPlatform());
    const bad = new Client(wsUrl(p));
    await bad.opened();
    bad.send({ type: 'auth', token: 'not-a-jwt' });
    expect((await bad.closed).code).toBe(4401);

    const early = new Client(wsUrl(p));
    await early.opened();
    early.send({ type: 'subscribe', deviceId: 'x' });
    expect((await early.closed).code).toBe(4401);
    expect(early.has('stats')).toBe(false);

    const badQuery = new Client(wsUrl(p, '?token=nope'));
    expect((await badQuery.closed).code).toBe(4401);
  });

  it('authenticates by query token and pushes the counters when they change', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const client = new Client(wsUrl(p, `?token=${encodeURIComponent(token)}`));
    await client.next('ready');
    const first = await client.next('stats');
    expect(first.stats.devices).toBe(0);
    await createDevice(p, token, { name: 'counted' });
    const next = await client.next('stats', (m) => m.stats.devices === 1);
    expect(next.stats).toMatchObject({ devices: 1, connectedSessions: 0 });
    client.ws.close();
  });

  it('pushes telemetry and attributes of subscribed devices the user may see', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const device = await createDevice(p, token, { name: 'live' });
    const other = await createDevice(p, token, { name: 'other' });
    const client = await connect(p, token);
    client.send({ type: 'subscribe', deviceId: device.id.id });
    await client.next('subscribed');

    const base = `/api/plugins/telemetry/DEVICE`;
    await okEmpty(
      p.http(`${base}/${other.id.id}/timeseries/ANY`, { method: 'POST', token, json: { ignored: 1 } }),
    );
    await okEmpty(
      p.http(`${base}/${device.id.id}/timeseries/ANY`, {
        method: 'POST',
        token,
        json: { ts: 1234, values: { temperature: 21.5 } },
      }),
    );
    const telemetry = await client.next('telemetry');
    expect(telemetry).toEqual({
      type: 'telemetry',
      deviceId: device.id.id,
      entries: [{ ts: 1234, values: { temperature: 21.5 } }],
    });
    await okEmpty(
      p.http(`${base}/${device.id.id}/attributes/SHARED_SCOPE`, {
        method: 'POST',
        token,
        json: { mode: 'eco' },
      }),
    );
    const attributes = await client.next('attributes');
    expect(attributes).toMatchObject({
      deviceId: device.id.id,
      scope: 'SHARED_SCOPE',
      values: { mode: 'eco' },
    });

    // A customer user may not follow the tenant's device.
    const customer = await connect(p, await p.login(CUSTOMER.username, CUSTOMER.password));
    customer.send({ type: 'subscribe', deviceId: device.id.id });
    const refused = await customer.next('error');
    expect(refused.code).toBe(20);
    customer.ws.close();
    client.ws.close();
  });

  it('closes the socket once the session is logged out', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const client = await connect(p, token);
    await okEmpty(p.http('/api/auth/logout', { method: 'POST', token }));
    // re-sending the (now revoked) token is checked at once
    client.send({ type: 'auth', token });
    expect((await client.closed).code).toBe(4401);
  });
});

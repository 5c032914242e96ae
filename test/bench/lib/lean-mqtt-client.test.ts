import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes } from 'aedes';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConnectionRefusedError, LeanMqttClient } from '../../../bench/lib/lean-mqtt-client.ts';

/** bench:fleet's devices are lean MQTT 3.1.1 clients: a real broker must see them as any other client. */
describe('the lean MQTT client of the fleet bench', () => {
  let broker: Aedes;
  let server: Server;
  let port: number;
  const clients: LeanMqttClient[] = [];

  beforeEach(async () => {
    broker = await Aedes.createBroker({
      authenticate: (_client, username, _password, done) =>
        username === 'good-token'
          ? done(null, true)
          : done(Object.assign(new Error('bad'), { returnCode: 4 as const }), false),
    });
    server = createServer((socket) => broker.handle(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    for (const c of clients) c.end();
    clients.length = 0;
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const connect = async (username: string) => {
    const c = await LeanMqttClient.connect({
      host: '127.0.0.1',
      port,
      clientId: `lean-${username}`,
      username,
      keepaliveS: 600,
      connectTimeoutMs: 5_000,
    });
    clients.push(c);
    return c;
  };

  it('connects with its user name as a clean 3.1.1 session', async () => {
    const ready = once(broker, 'clientReady');
    await connect('good-token');
    const [client] = (await ready) as [{ id: string; version: number; clean: boolean }];
    expect(client).toMatchObject({ id: 'lean-good-token', version: 4, clean: true });
  });

  it('reports a refused CONNECT with its return code', async () => {
    const refused = await connect('bad-token').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ConnectionRefusedError);
    expect((refused as ConnectionRefusedError).code).toBe(4);
  });

  it('resolves QoS 1 publishes on their PUBACKs, in any number', async () => {
    const c = await connect('good-token');
    const received: string[] = [];
    broker.on('publish', (packet, client) => {
      if (client) {
        expect(packet.qos).toBe(1);
        received.push(`${packet.topic} ${packet.payload.toString()}`);
      }
    });
    const bodies = Array.from({ length: 300 }, (_, i) => JSON.stringify({ temperature: i }));
    await Promise.all(bodies.map((b) => c.publish('v1/devices/me/telemetry', b)));
    expect(received).toEqual(bodies.map((b) => `v1/devices/me/telemetry ${b}`));
  });

  it('rejects the publishes still waiting when the connection closes', async () => {
    const c = await connect('good-token');
    broker.authorizePublish = (client, _packet, done) => client!.close(() => done(null));
    await expect(c.publish('v1/devices/me/telemetry', '{}')).rejects.toThrow('connection closed');
  });
});

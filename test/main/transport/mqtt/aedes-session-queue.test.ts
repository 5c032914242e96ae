import { once } from 'node:events';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * Sandboard patches aedes (patches/aedes+*.patch) to drain a connecting client's stored messages without
 * stream pipeline(); what a client receives on reconnect must be what aedes gave it before.
 */
function nextMessage(client: MqttClient): Promise<[string, string]> {
  return new Promise((resolve) =>
    client.once('message', (topic, payload) => resolve([topic, payload.toString()])),
  );
}

describe('the patched broker on reconnect', () => {
  let broker: Aedes;
  let server: Server;
  let url: string;
  const clients: MqttClient[] = [];

  beforeEach(async () => {
    broker = await Aedes.createBroker();
    server = createServer((socket) => broker.handle(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    clients.length = 0;
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  async function connect(clientId: string, clean: boolean): Promise<MqttClient> {
    const c = await mqtt.connectAsync(url, { clientId, clean, protocolVersion: 4, reconnectPeriod: 0 });
    clients.push(c);
    return c;
  }

  async function publishWhileAway(topic: string, payloads: string[]): Promise<void> {
    for (const payload of payloads)
      await new Promise<void>((resolve, reject) =>
        broker.publish(
          { cmd: 'publish', topic, payload: Buffer.from(payload), qos: 1, retain: false, dup: false },
          (err) => (err ? reject(err) : resolve()),
        ),
      );
  }

  it('delivers a persistent session its queued QoS 1 messages, in order, after it reconnects', async () => {
    const first = await connect('persistent-1', false);
    await first.subscribeAsync('queue/t', { qos: 1 });
    await first.endAsync();
    await publishWhileAway('queue/t', ['one', 'two', 'three']);

    const received: string[] = [];
    const all = new Promise<void>((resolve) => {
      const again = mqtt.connect(url, {
        clientId: 'persistent-1',
        clean: false,
        protocolVersion: 4,
        reconnectPeriod: 0,
      });
      clients.push(again);
      again.on('message', (_topic, payload) => {
        received.push(payload.toString());
        if (received.length === 3) resolve();
      });
    });
    await all;
    expect(received).toEqual(['one', 'two', 'three']);
  });

  it('gives a clean session none of the messages queued for the session it replaces', async () => {
    const first = await connect('was-persistent', false);
    await first.subscribeAsync('queue/t', { qos: 1 });
    await first.endAsync();
    await publishWhileAway('queue/t', ['stale']);

    const clean = await connect('was-persistent', true);
    const received: string[] = [];
    clean.on('message', (_topic, payload) => received.push(payload.toString()));
    await clean.subscribeAsync('queue/t', { qos: 1 });
    // a message after the subscription arrives; the stale one, queued before, does not come before it
    const fresh = nextMessage(clean);
    await publishWhileAway('queue/t', ['fresh']);
    await fresh;
    expect(received).toEqual(['fresh']);
  });

  it('still sends a clean session the retained message of a topic it subscribes to', async () => {
    const publisher = await connect('publisher', true);
    await publisher.publishAsync('state/t', 'retained', { qos: 1, retain: true });
    const clean = await connect('subscriber', true);
    const message = nextMessage(clean);
    await clean.subscribeAsync('state/t', { qos: 1 });
    expect(await message).toEqual(['state/t', 'retained']);
  });
});

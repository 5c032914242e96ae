// The gateway's MQTT session batches what many callers send: one publish per event-loop turn, one batch
// in flight; what comes while a batch waits for its PUBACK goes out together in the next one.
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { Aedes } from 'aedes';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GatewayClient } from '../../../main/gateway/gateway-client.ts';

/** A bare broker (any broker carries the gateway API) that holds the PUBACK of telemetry until released. */
async function slowPlatform() {
  const broker = await Aedes.createBroker({
    authorizePublish(_client, packet, done) {
      if (packet.topic !== 'v1/gateway/telemetry') return done(null);
      telemetry.push(JSON.parse(packet.payload.toString()) as Record<string, { ts: number }[]>);
      held.push(() => done(null));
      for (const w of waiting.splice(0)) w();
    },
  });
  const telemetry: Record<string, { ts: number }[]>[] = [];
  const held: (() => void)[] = [];
  const waiting: (() => void)[] = [];
  const server = createNetServer((socket) => broker.handle(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    await new Promise<void>((resolve) => broker.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`,
    telemetry,
    /** resolves once the broker has received n telemetry publishes */
    async received(n: number) {
      while (telemetry.length < n) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    releaseAll() {
      for (const ack of held.splice(0)) ack();
    },
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const reading = (ts: number) => ({ telemetry: [{ ts, values: { v: ts } }] });

describe('GatewayClient', () => {
  it('sends the data of one turn in one publish, and what comes while it is unacknowledged in the next', async () => {
    const platform = await slowPlatform();
    const gateway = await GatewayClient.connect({ url: platform.url, token: 'gw' });
    onTestFinished(() => gateway.close());

    const settled: number[] = [];
    const send = (device: string, ts: number) =>
      gateway.send(device, 'meter', reading(ts)).then(() => settled.push(ts));
    const first = [send('M1', 1), send('M2', 2)];
    await platform.received(1);
    // the first batch waits for its PUBACK; three more turns of data meanwhile
    const next = [send('M1', 3)];
    await turn();
    next.push(send('M2', 4));
    await turn();
    next.push(send('M1', 5));
    await turn();
    expect(platform.telemetry).toHaveLength(1);
    expect(settled).toEqual([]);

    platform.releaseAll();
    await Promise.all(first);
    await platform.received(2);
    platform.releaseAll();
    await Promise.all(next);
    expect(platform.telemetry).toEqual([
      { M1: [{ ts: 1, values: { v: 1 } }], M2: [{ ts: 2, values: { v: 2 } }] },
      {
        M1: [
          { ts: 3, values: { v: 3 } },
          { ts: 5, values: { v: 5 } },
        ],
        M2: [{ ts: 4, values: { v: 4 } }],
      },
    ]);
    expect(settled).toEqual([1, 2, 3, 4, 5]);
  });
});

import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, connect, publish } from '../transport/mqtt/mqtt-kit.ts';
import { startServe, type ServeProcess } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import {
  assignDevice,
  chainMetadata,
  createEdge,
  EdgeClient,
  queueCounts,
  rootChainId,
  withPushToEdge,
  type EdgeCredentials,
  type EdgeEventJson,
} from '../../fixtures/edge-test-kit.ts';

/**
 * `sandboard serve` killed with SIGKILL while MQTT devices publish telemetry through Save Timeseries and
 * the push to edge node, again and again on the same data dir. A PUBACK comes once the message went
 * through the whole chain, push to edge's Success included: after every restart, every PUBACKed message
 * must have its edge event, each device's in publish order (seqId order), none twice.
 */
const FREE_PORTS = ['--http-port', '0', '--mqtt-port', '0', '--analytics-port', '0'];
const CYCLES = 3;
const DEVICES = 3;

type Http = (path: string, init?: RequestInit & { json?: unknown; token?: string }) => Promise<Response>;

function httpOf(serve: ServeProcess): Http {
  return (path, init = {}) => {
    const { json, token, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (json !== undefined) headers.set('content-type', 'application/json');
    if (token) headers.set('x-authorization', `Bearer ${token}`);
    return fetch(`${serve.urls.http}${path}`, {
      ...rest,
      headers,
      body: json !== undefined ? JSON.stringify(json) : rest.body,
    });
  };
}

async function login(http: Http): Promise<string> {
  const res = await http('/api/auth/login', {
    method: 'POST',
    json: { username: 'tenant@thingsboard.org', password: 'tenant' },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

interface DeviceState {
  id: string;
  accessToken: string;
  /** the next message number this device publishes */
  next: number;
  /** messages PUBACKed since the last check */
  acked: number[];
  /** the message published when the process died, if no PUBACK came */
  inFlight: number | null;
  /** the first message number the next check expects */
  expectFrom: number;
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

const start = (dir: string) => startServe(['--data-dir', dir, ...FREE_PORTS]);

describe('push to edge under SIGKILL', () => {
  afterEach(closeAll);

  it(
    'keeps the event of every PUBACKed message, in publish order per device, across kills',
    { timeout: 120_000 },
    async () => {
      const dir = tempDir('sandboard-edge-crash-');
      let serve = await start(dir);
      let http = httpOf(serve);
      let token = await login(http);
      const chainId = await rootChainId(http, token);
      const saved = await http('/api/ruleChain/metadata', {
        method: 'POST',
        token,
        json: withPushToEdge(await chainMetadata(http, token, chainId), { scope: 'SERVER_SCOPE' }, false),
      });
      expect(saved.status, await saved.text()).toBe(200);
      const edge: EdgeCredentials = await createEdge(http, token, 'crash-edge');
      const devices: DeviceState[] = [];
      for (let d = 0; d < DEVICES; d++) {
        const accessToken = `crash-token-${d}-${process.pid}`;
        const res = await http(`/api/device?accessToken=${accessToken}`, {
          method: 'POST',
          token,
          json: { name: `crash-device-${d}` },
        });
        expect(res.status).toBe(200);
        const id = ((await res.json()) as { id: { id: string } }).id.id;
        await assignDevice(http, token, edge.id, id);
        devices.push({ id, accessToken, next: 0, acked: [], inFlight: null, expectFrom: 0 });
      }

      let totalAcked = 0;
      let delivered = 0;
      for (let cycle = 0; cycle <= CYCLES; cycle++) {
        if (cycle > 0) {
          serve = await start(dir);
          http = httpOf(serve);
          token = await login(http);
          // Everything queued since the last check, in pull order, each device's messages in publish order.
          const events = await new EdgeClient(serve.urls.http, edge).drain();
          check(events, devices, cycle);
          // The edge's own numbers go on across kills with no gap and no repeat: each was taken in the
          // write that stored its event.
          expect(
            events.map((e) => e.edgeSeq),
            `cycle ${cycle}: edgeSeq`,
          ).toEqual(Array.from({ length: events.length }, (_, i) => delivered + 1 + i));
          delivered += events.length;
          expect(await queueCounts(http, token, edge.id)).toEqual({
            PENDING: 0,
            RETRIEVED: 0,
            DELIVERED: delivered,
          });
        }
        if (cycle === CYCLES) break;

        // Publish QoS 1 telemetry from every device, one message at a time each, until the kill.
        let firstAck: () => void = () => {};
        const acked = new Promise<void>((resolve) => (firstAck = resolve));
        let killed = false;
        const publishers = devices.map(async (device) => {
          let client: Awaited<ReturnType<typeof connect>>;
          try {
            client = await connect(serve.urls.mqtt, device.accessToken, 5);
          } catch (err) {
            if (killed) return; // killed before this device got connected
            throw err;
          }
          while (!killed) {
            const n = device.next++;
            device.inFlight = n;
            const outcome = await publish(client, 'v1/devices/me/telemetry', { n, cycle, v: n * 0.5 });
            if (outcome.code !== 0) return;
            device.inFlight = null;
            device.acked.push(n);
            totalAcked++;
            firstAck();
          }
        });
        await acked;
        await new Promise((resolve) => setTimeout(resolve, randomInt(20, 400)));
        killed = true;
        serve.child.kill('SIGKILL');
        const [, signal] = (await once(serve.child, 'exit')) as [number | null, NodeJS.Signals | null];
        expect(signal).toBe('SIGKILL');
        await Promise.all(publishers);
        await closeAll();
      }
      expect(totalAcked).toBeGreaterThan(CYCLES * DEVICES);

      serve.child.kill('SIGTERM');
      await once(serve.child, 'exit');
    },
  );
});

/** Checks the events drained after a restart against what the devices were told was stored. */
function check(events: EdgeEventJson[], devices: DeviceState[], cycle: number): void {
  const seqIds = events.map((e) => e.seqId);
  for (let i = 1; i < seqIds.length; i++)
    expect(seqIds[i], `cycle ${cycle}: seqId order`).toBeGreaterThan(seqIds[i - 1]!);
  for (const [d, device] of devices.entries()) {
    const numbers = events
      .filter((e) => e.entityId === device.id)
      .map((e) => {
        expect(e.action).toBe('TIMESERIES_UPDATED');
        return (e.body as { data: { n: number } }).data.n;
      });
    const where = `cycle ${cycle}, device ${d}: acked ${device.acked.length} (${device.acked[0]}..${device.acked.at(-1)}), in flight ${device.inFlight}`;
    // Exactly the acknowledged messages, in publish order; the one in flight at the kill may be there too.
    const expected = Array.from({ length: device.next - device.expectFrom }, (_, i) => device.expectFrom + i);
    const withInFlight = expected;
    const withoutInFlight =
      device.inFlight === null ? expected : expected.filter((n) => n !== device.inFlight);
    expect([withInFlight, withoutInFlight], where).toContainEqual(numbers);
    for (const n of device.acked) expect(numbers, where).toContain(n);
    device.expectFrom = device.next;
    device.acked = [];
    device.inFlight = null;
  }
}

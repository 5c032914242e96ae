import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import mqtt from 'mqtt';
import { describe, expect, it } from 'vitest';
import { FREE_PORTS, serveLogin, serveRest, startServe } from '../../helpers/serve-process.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

const fdCount = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Opens a raw connection to an http://host:port URL (or mqtt://). */
async function rawSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  return socket;
}

/** Sends an upgrade request and resolves with the answer once the server closes the socket. */
async function refusedUpgrade(url: string, host: string): Promise<string> {
  const socket = await rawSocket(url);
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.write(
    `GET /api/ws/plugins/telemetry HTTP/1.1\r\nHost: ${host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
  );
  // the server ends it: this test never closes the socket itself
  await once(socket, 'close');
  return answer;
}

/**
 * Refused upgrades close their sockets, and SIGTERM stops `sandboard serve` within 5 s whatever its
 * clients do: an open long poll, a websocket that never answers the close handshake, an upgrade whose
 * headers never finish, an MQTT connection that never sends CONNECT and a connected MQTT client.
 */
describe('refused upgrades and SIGTERM', () => {
  it(
    'closes every refused upgrade and stops within 5 s with clients holding on',
    { timeout: 120_000 },
    async () => {
      if (process.platform !== 'linux') return; // counts /proc/<pid>/fd
      const serve = await startServe(['--data-dir', tempDir(), ...FREE_PORTS]);
      const pid = serve.child.pid!;
      const token = await serveLogin(serve);
      const device = await serveRest<{ id: { id: string } }>(serve, '/api/device?accessToken=stop-test', {
        method: 'POST',
        token,
        body: JSON.stringify({ name: 'stop-test', type: 'default' }),
      });
      expect(device.id.id).toBeTruthy();
      const start = fdCount(pid);

      // 1,000 refused upgrades: 421 for a Host that is not ours, 400 for a Host that is no Host
      const hosts = ['evil.example:80', 'localhost:8080@evil.com'];
      for (let batch = 0; batch < 20; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) => refusedUpgrade(serve.urls.http, hosts[i % 2]!)),
        );
        for (const [i, answer] of answers.entries())
          expect(answer).toMatch(i % 2 === 0 ? /^HTTP\/1\.1 421 / : /^HTTP\/1\.1 400 /);
      }
      await expect.poll(() => fdCount(pid), { timeout: 10_000 }).toBeLessThanOrEqual(start);

      // clients that hold on
      const base = serve.urls.http;
      const longPoll = fetch(`${base}/api/v1/stop-test/rpc?timeout=60000`).then(
        (r) => r.status,
        () => 'closed',
      );
      const websocket = await rawSocket(base);
      websocket.write(
        `GET /api/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n',
      );
      const [switched] = (await once(websocket, 'data')) as [Buffer];
      expect(switched.toString('latin1')).toMatch(/^HTTP\/1\.1 101 /);
      websocket.on('data', () => undefined); // reads, never answers
      const halfUpgrade = await rawSocket(base);
      halfUpgrade.write('GET /api/ws HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n');
      const silentMqtt = await rawSocket(serve.urls.mqtt);
      const client = await mqtt.connectAsync(serve.urls.mqtt, { username: 'stop-test', reconnectPeriod: 0 });
      for (const s of [websocket, halfUpgrade, silentMqtt]) s.on('error', () => undefined);
      client.on('error', () => undefined);

      const before = performance.now();
      serve.child.kill('SIGTERM');
      const [code] = (await once(serve.child, 'exit')) as [number | null];
      const took = performance.now() - before;
      expect(code).toBe(0);
      expect(took).toBeLessThan(5_000);
      expect(await longPoll).not.toBe(200);
      await client.endAsync(true);
      for (const s of [websocket, halfUpgrade, silentMqtt]) s.destroy();
    },
  );
});

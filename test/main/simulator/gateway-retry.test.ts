import { writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { Scenario } from '../../../shared/schemas/simulation.ts';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson } from '../api/api-kit.ts';
import { simulateCli } from './sim-kit.ts';

const simulate = simulateCli;

/**
 * A TCP front of the platform's broker that turns away the first `refusals` connections whose CONNECT
 * carries `token`: the first is closed at once (refused), the others get no answer at all.
 */
async function frontRefusing(mqttUrl: string, token: string, refusals: number) {
  const upstream = new URL(mqttUrl);
  const held: Socket[] = [];
  let turnedAway = 0;
  const server = createServer((socket) => {
    socket.once('data', (first) => {
      if (first.includes(token) && turnedAway < refusals) {
        if (turnedAway++ === 0) socket.destroy();
        else held.push(socket);
        return;
      }
      const up = connect(Number(upstream.port), upstream.hostname);
      up.write(first);
      socket.pipe(up).pipe(socket);
      const end = () => (socket.destroy(), up.destroy());
      up.on('error', end).on('close', end);
      socket.on('error', end).on('close', end);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => {
    for (const s of held) s.destroy();
    server.close();
  });
  return { url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, turnedAway: () => turnedAway };
}

/**
 * A TCP front of the platform's broker that lets each gateway's first connection through CONNECT and
 * SUBSCRIBE, then cuts it as the gateway starts connecting its devices (a busy platform dropping it).
 */
async function frontCuttingFirstSessions(mqttUrl: string) {
  const upstream = new URL(mqttUrl);
  const cut = new Set<string>();
  const server = createServer((socket) => {
    const up = connect(Number(upstream.port), upstream.hostname);
    let token: string | null = null;
    socket.on('data', (chunk) => {
      token ??= /[a-z]+-token/.exec(chunk.toString('latin1'))?.[0] ?? null;
      if (token && !cut.has(token) && chunk.includes('v1/gateway/connect')) {
        cut.add(token);
        socket.destroy();
        up.destroy();
        return;
      }
      up.write(chunk);
    });
    up.pipe(socket);
    const end = () => (socket.destroy(), up.destroy());
    up.on('error', end).on('close', end);
    socket.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => void server.close());
  return { url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, cut };
}

async function gatewayDevice(p: TestPlatform, token: string, name: string, accessToken: string) {
  await okJson(
    p.http(`/api/device?accessToken=${accessToken}`, {
      method: 'POST',
      token,
      json: { name, additionalInfo: { gateway: true } },
    }),
  );
}

function writeScenario(scenario: Scenario): string {
  const file = join(tempDir(), 'scenario.json');
  writeFileSync(file, JSON.stringify(scenario));
  return file;
}

const gateway = (name: string, token: string) => ({
  name,
  token,
  qos: 1 as const,
  periodMs: 200,
  devicesCount: 2,
  deviceNamePattern: '${gateway} device ${n}',
  keys: [{ key: 'n', generator: { kind: 'counter' as const } }],
});

describe('sandboard simulate with gateways that cannot connect', () => {
  it.each([
    ['in the main thread', '0'],
    ['in worker threads', '2'],
  ])(
    'retries a refused or unanswered gateway with backoff and reports it while the others run (%s)',
    async (_, workers) => {
      const p = await startTestPlatform();
      const token = await p.login();
      await gatewayDevice(p, token, 'Steady', 'steady-token');
      await gatewayDevice(p, token, 'Late', 'late-token');
      const front = await frontRefusing(p.urls.mqtt, 'late-token', 2);
      const file = writeScenario({
        name: 'retry',
        gateways: [gateway('Steady', 'steady-token'), gateway('Late', 'late-token')],
      });
      // the first attempt is refused; the retry 1 s later gets no answer until the connect timeout (10 s);
      // the one 2 s after that connects
      const { code, stdout, stderr } = await simulate([
        file,
        '--platform',
        front.url,
        '--duration',
        '20s',
        '--workers',
        workers,
      ]);
      expect(code, stderr).toBe(0);
      expect(front.turnedAway()).toBe(2);
      expect(stdout).toMatch(
        workers === '0' ? /\| 1 retrying \| cpu main \d+% \|/ : /\| 1 retrying \| cpu w1 \d+% w2 \d+% \|/,
      );
      expect(stdout).toContain("gateway 'Late': 2 connection retries");

      const devices = await okJson<{ data: { name: string }[] }>(
        p.http(
          '/api/tenant/devices?pageSize=10&page=0&textSearch=Late%20device&sortProperty=name&sortOrder=ASC',
          {
            token,
          },
        ),
      );
      expect(devices.data.map((d) => d.name)).toEqual(['Late device 1', 'Late device 2']);
    },
    90_000,
  );

  it.each([
    ['in the main thread', '0'],
    ['in worker threads', '2'],
  ])(
    'retries every gateway when all were dropped after the broker accepted them, and the run goes on (%s)',
    async (_, workers) => {
      const p = await startTestPlatform();
      const token = await p.login();
      await gatewayDevice(p, token, 'First', 'first-token');
      await gatewayDevice(p, token, 'Second', 'second-token');
      const front = await frontCuttingFirstSessions(p.urls.mqtt);
      const file = writeScenario({
        name: 'dropped',
        messages: 3,
        gateways: [gateway('First', 'first-token'), gateway('Second', 'second-token')],
      });
      const { code, stdout, stderr } = await simulate([file, '--platform', front.url, '--workers', workers]);
      expect(code, stderr).toBe(0);
      expect([...front.cut].sort()).toEqual(['first-token', 'second-token']);
      expect(stdout).toContain('done (messages)');
      expect(stdout).toContain("gateway 'First': 1 connection retries");
      expect(stdout).toContain("gateway 'Second': 1 connection retries");
      expect(stdout).toMatch(/, 6 telemetry messages, 12 values/);
    },
    60_000,
  );

  it.each([
    ['in the main thread', '0'],
    ['in worker threads', '2'],
  ])(
    'tells the user that the open-file limit, not Sandboard, bounds the fleet (%s)',
    async (_, workers) => {
      const p = await startTestPlatform();
      const token = await p.login();
      const gateways = Array.from({ length: 60 }, (_, i) => gateway(`FD ${i}`, `fd-token-${i}`));
      for (const g of gateways) await gatewayDevice(p, token, g.name, g.token);
      const { stdout, stderr } = await simulate(
        [
          writeScenario({ name: 'fd', gateways }),
          '--platform',
          p.urls.mqtt,
          '--duration',
          '2s',
          '--workers',
          workers,
        ],
        ['prlimit', '--nofile=60:60'],
      );
      const output = stdout + stderr;
      expect(output).toContain('open-file limit');
      expect(output).toContain('ulimit -n: 60');
      expect(output).toMatch(/the open-file limit of this process \(ulimit -n: 60\) is reached/);
    },
    90_000,
  );
});

/**
 * OTA at fleet scale: 1,000 simulated devices (each its own MQTT connection, the Python SDK's flow:
 * DOWNLOADING, chunk requests on v2/fw/request/{id}/chunk/{n}, DOWNLOADED, VERIFIED, UPDATING,
 * UPDATED) download a 1 MB package from a real `sandboard serve` at once, after their device profile gets
 * it. Prints MB/s (package bytes received by all devices over the time from the assignment to the last
 * UPDATED), that time, and serve's RSS (peak). Baseline, in the same run: raw aedes in its own process,
 * each of as many clients sending itself the same chunks through the broker (a chunk crosses it once each
 * way), so the ratio says what the platform's chunk service costs beside moving the bytes.
 * Run: npm run bench:ota. Last line: BENCH {"name":"ota",...}.
 *
 * Env: BENCH_OTA_DEVICES (default 1,000), BENCH_OTA_PACKAGE_KB (1,024), BENCH_OTA_CHUNK_KB (64).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { OtaFleet } from '../main/simulator/ota-fleet.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { startRawAedes } from './lib/raw-aedes.ts';
import { startServeChild } from './lib/serve-child.ts';

const DEVICES = Number(process.env.BENCH_OTA_DEVICES ?? 1_000);
const PACKAGE_BYTES = Number(process.env.BENCH_OTA_PACKAGE_KB ?? 1_024) * 1024;
const CHUNK_BYTES = Number(process.env.BENCH_OTA_CHUNK_KB ?? 64) * 1024;
const MB = 1024 * 1024;

function memoryOf(pid: number): { rssMB: number; peakMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

async function json<T>(res: Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.url}: ${r.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

async function platformRun(): Promise<{
  mbPerSec: number;
  allUpdatedS: number;
  rssMB: number;
  peakMB: number;
  states: Record<string, number>;
}> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-ota-bench-'));
  const serve = await startServeChild(dataDir);
  const fleet: { current?: OtaFleet } = {};
  try {
    const http = serve.urls.http;
    const { token } = await json<{ token: string }>(
      fetch(`${http}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'tenant@thingsboard.org', password: 'tenant' }),
      }),
    );
    const call = <T>(path: string, init: RequestInit & { json?: unknown } = {}) =>
      json<T>(
        fetch(`${http}${path}`, {
          ...init,
          headers: {
            'x-authorization': `Bearer ${token}`,
            ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
        }),
      );
    const profile = await call<{ id: { id: string } } & Record<string, unknown>>('/api/deviceProfile', {
      method: 'POST',
      json: { name: 'ota-bench' },
    });
    const tokens = Array.from({ length: DEVICES }, (_, i) => `ota-bench-${i}`);
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < DEVICES) {
          const i = next++;
          await call(`/api/device?accessToken=${tokens[i]}`, {
            method: 'POST',
            json: {
              name: `OTA Bench ${i}`,
              deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id },
            },
          });
        }
      }),
    );
    const info = await call<{ id: { id: string } }>('/api/otaPackage', {
      method: 'POST',
      json: { title: 'bench-fw', version: '1.0', type: 'FIRMWARE', deviceProfileId: { id: profile.id.id } },
    });
    const form = new FormData();
    form.set('file', new Blob([randomBytes(PACKAGE_BYTES)]), 'bench.bin');
    await call(`/api/otaPackage/${info.id.id}?checksumAlgorithm=SHA256`, { method: 'POST', body: form });

    fleet.current = new OtaFleet({ url: serve.urls.mqtt, tokens, chunkSize: CHUNK_BYTES });
    await fleet.current.start();
    const started = performance.now();
    await call('/api/deviceProfile', {
      method: 'POST',
      json: { ...profile, firmwareId: { entityType: 'OTA_PACKAGE', id: info.id.id } },
    });
    const states = await fleet.current.whenFinished();
    const seconds = (performance.now() - started) / 1000;
    const memory = memoryOf(serve.child.pid!);
    return {
      mbPerSec: fleet.current.bytes() / MB / seconds,
      allUpdatedS: seconds,
      rssMB: memory.rssMB,
      peakMB: memory.peakMB,
      states,
    };
  } finally {
    await fleet.current?.stop();
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Raw aedes moving the same bytes: each client publishes the chunks to its own topic and waits for each. */
async function baselineRun(): Promise<{ mbPerSec: number; seconds: number }> {
  const broker = await startRawAedes();
  const clients: MqttClient[] = [];
  try {
    for (let i = 0; i < DEVICES; i++) {
      const c = await connectAsync(broker.url, { clientId: `ota-base-${i}`, reconnectPeriod: 0 });
      await c.subscribeAsync(`fw/${i}`, { qos: 1 });
      clients.push(c);
    }
    const chunk = randomBytes(CHUNK_BYTES);
    const chunks = Math.ceil(PACKAGE_BYTES / CHUNK_BYTES);
    let bytes = 0;
    const started = performance.now();
    await Promise.all(
      clients.map(async (c, i) => {
        for (let n = 0; n < chunks; n++) {
          const size = Math.min(CHUNK_BYTES, PACKAGE_BYTES - n * CHUNK_BYTES);
          const arrived = new Promise<void>((resolve) => c.once('message', () => resolve()));
          await c.publishAsync(`fw/${i}`, chunk.subarray(0, size), { qos: 1 });
          await arrived;
          bytes += size;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { mbPerSec: bytes / MB / seconds, seconds };
  } finally {
    await Promise.all(clients.map((c) => c.endAsync(true).catch(() => undefined)));
    await broker.stop();
  }
}

const ota = await platformRun();
const base = await baselineRun();
printFigures({
  devices: DEVICES,
  'package size': [PACKAGE_BYTES / 1024, 'KiB'],
  'chunk size': [CHUNK_BYTES / 1024, 'KiB'],
  'final states': JSON.stringify(ota.states),
  'OTA download, all devices': [ota.mbPerSec, 'MB/s'],
  'time until all UPDATED': [ota.allUpdatedS, 's'],
  'serve RSS (peak)': [`${ota.rssMB.toFixed(0)} (${ota.peakMB.toFixed(0)})`, 'MB'],
  'raw aedes, same bytes': [base.mbPerSec, 'MB/s'],
  'ratio to raw aedes': ota.mbPerSec / base.mbPerSec,
});
printBench({
  name: 'ota',
  devices: DEVICES,
  mbPerSec: ota.mbPerSec,
  allUpdatedS: ota.allUpdatedS,
  rssMB: ota.rssMB,
  peakRssMB: ota.peakMB,
  baselineMbPerSec: base.mbPerSec,
  ratioToRawAedes: ota.mbPerSec / base.mbPerSec,
});
process.exit(0);

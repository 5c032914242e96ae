/**
 * npm run bench:replay — a recording of 100k messages replayed at --speed max with assertions.
 *
 * The recording is generated with bench:ingest's load: 10 gateways x 100 devices, each QoS 1 publish on
 * v1/gateway/telemetry carrying 10 devices x 3 keys, each expecting PUBACK reason code 0; after every
 * 1,000 publishes of a gateway an expect.latest of one of its devices, and at the end one per device.
 * It is replayed by this process (`sandboard replay`'s code) against a fresh `sandboard serve` child; the
 * devices it creates first (through REST) are not timed. In the same run, bench:ingest's load runs
 * against another fresh one for the baseline: ratioToIngest = replayed messages/s / ingest publishes/s.
 *
 * recordingIngestRatio: the same ingest load on a fresh Sandboard while a recording of every device runs
 * (POST /api/sandboard/recordings), against the one without.
 *
 * Env: BENCH_REPLAY_MESSAGES (100,000), BENCH_DURATION_S (ingest's measured seconds, 8), BENCH_WARMUP_S
 * (1), BENCH_WINDOW (ingest's in-flight publishes per gateway, 4), BENCH_REPLAY_WINDOW (the replay's, 100).
 * Last line: BENCH {"name":"replay",...}.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import { readRecordingFile } from '../main/replay/replay-command.ts';
import { replayRecording } from '../main/replay/replay-run.ts';
import { RECORDING_FORMAT, RECORDING_VERSION } from '../shared/schemas/recording.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { benchHttp, createBenchGateways, tenantToken } from './lib/bench-http.ts';
import {
  connectClients,
  connectDevices,
  deviceName,
  DEVICES_PER_GATEWAY,
  DEVICES_PER_PUBLISH,
  publishShape,
  runLoad,
  telemetryPayload,
  values,
  type LoadResult,
} from './lib/gateway-load.ts';
import { startServeChild } from './lib/serve-child.ts';

const GATEWAYS = 10;
const MESSAGES = Number(process.env.BENCH_REPLAY_MESSAGES ?? 100_000);
const DURATION_MS = Number(process.env.BENCH_DURATION_S ?? 8) * 1000;
const WARMUP_MS = Number(process.env.BENCH_WARMUP_S ?? 1) * 1000;
const WINDOW = Number(process.env.BENCH_WINDOW ?? 4);
const REPLAY_WINDOW = Number(process.env.BENCH_REPLAY_WINDOW ?? 100);
/** an expect.latest after this many publishes of a gateway */
const CHECK_EVERY = 1000;
/** a day ago: inside the default retention, never "now" */
const BASE = Date.now() - 86_400_000;
const TARGETS = { ratioToIngest: 0.5, recordingIngestRatio: 0.9 };

const gatewayName = (g: number) => `Bench Gateway ${g}`;

/** The recording as JSON Lines; its expectations follow the values bench:ingest's load publishes. */
function generateRecording(): string {
  const lines: string[] = [];
  const push = (r: unknown) => lines.push(JSON.stringify(r));
  push({
    kind: 'header',
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    name: 'bench replay',
    startedAt: BASE,
  });
  for (let g = 0; g < GATEWAYS; g++) {
    push({ kind: 'device', t: 0, name: gatewayName(g), type: 'default', gateway: true });
    for (let d = 0; d < DEVICES_PER_GATEWAY; d++)
      push({ kind: 'device', t: 0, name: deviceName(g, d), type: 'default', via: gatewayName(g) });
  }
  const perGateway = Math.ceil(MESSAGES / GATEWAYS);
  const latest = Array.from({ length: GATEWAYS }, () => new Map<number, ReturnType<typeof values>>());
  let t = 1;
  for (let i = 0; i < perGateway; i++, t++) {
    for (let g = 0; g < GATEWAYS && lines.length >= 0; g++) {
      if (i * GATEWAYS + g >= MESSAGES) break;
      push({
        kind: 'mqtt.publish',
        t,
        device: gatewayName(g),
        direction: 'in',
        topic: 'v1/gateway/telemetry',
        qos: 1,
        payload: telemetryPayload(g, i, BASE),
        expect: { reasonCode: 0 },
      });
      const { first } = publishShape(i, BASE);
      for (let j = 0; j < DEVICES_PER_PUBLISH; j++) latest[g]!.set(first + j, values(i, j));
      if ((i + 1) % CHECK_EVERY === 0)
        push({ kind: 'expect.latest', t, device: deviceName(g, first), values: latest[g]!.get(first) });
    }
  }
  for (let g = 0; g < GATEWAYS; g++)
    for (const [d, v] of latest[g]!) push({ kind: 'expect.latest', t, device: deviceName(g, d), values: v });
  push({ kind: 'end', t: t + 1, records: lines.length - 1, truncated: false });
  return lines.join('\n') + '\n';
}

/**
 * bench:ingest's load against a fresh Sandboard; with `recording`, while a recording of every device runs
 * (POST /api/sandboard/recordings), checked to have recorded without being cut.
 */
async function ingestRun(recording: boolean): Promise<LoadResult & { recordedBytes?: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-replay-ingest-'));
  const serve = await startServeChild(dataDir, { SANDBOARD_RECORDING_MAX_MB: '1024' });
  try {
    const http = benchHttp(serve.urls.http);
    const token = await tenantToken(http);
    const tokens = await createBenchGateways(http, token, GATEWAYS);
    const clients: MqttClient[] = await connectClients(serve.urls.mqtt, tokens);
    await connectDevices(clients, WINDOW);
    const rec = recording
      ? await http<{ id: string }>('/api/sandboard/recordings', {
          method: 'POST',
          token,
          body: JSON.stringify({ durationMs: 3_600_000, name: 'bench' }),
        })
      : undefined;
    const result = await runLoad(clients, {
      window: WINDOW,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      base: BASE,
    });
    await Promise.all(clients.map((c) => c.endAsync()));
    if (!rec) return result;
    const info = await http<{ bytes: number; truncated: boolean; reason?: string }>(
      `/api/sandboard/recordings/${rec.id}/stop`,
      { method: 'POST', token },
    );
    if (info.truncated) throw new Error(`the recording was cut: ${info.reason}`);
    return { ...result, recordedBytes: info.bytes };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function replayRun(file: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-replay-'));
  const serve = await startServeChild(dataDir);
  try {
    const parseStarted = performance.now();
    const recording = readRecordingFile(file);
    const parseMs = performance.now() - parseStarted;
    const report = await replayRecording(recording, {
      http: serve.urls.http,
      mqtt: serve.urls.mqtt,
      auth: { username: 'tenant@thingsboard.org', password: 'tenant' },
      speed: 'max',
      assert: true,
      window: REPLAY_WINDOW,
    });
    return { report, parseMs };
  } finally {
    await serve.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
console.log(
  `${MESSAGES} messages through ${GATEWAYS} gateways x ${DEVICES_PER_GATEWAY} devices, ${DEVICES_PER_PUBLISH} devices x 3 keys per publish, ` +
    `QoS 1, replay window ${REPLAY_WINDOW}, ingest window ${WINDOW}; ${cpus().length} CPUs, load average ${loadBefore.toFixed(1)}`,
);
const dir = mkdtempSync(join(tmpdir(), 'sandboard-bench-recording-'));
const file = join(dir, 'bench.jsonl');
const text = generateRecording();
writeFileSync(file, text);
const ingest = await ingestRun(false);
const ingestRecorded = await ingestRun(true);
const { report, parseMs } = await replayRun(file);
rmSync(dir, { recursive: true, force: true });

const seconds = report.durationMs / 1000;
const messagesPerSec = report.messagesSent / seconds;
const checks = report.checksPassed + report.checksFailed;
const checksPerSec = checks / seconds;
const ratioToIngest = messagesPerSec / ingest.publishesPerSec;
const recordingIngestRatio = ingestRecorded.publishesPerSec / ingest.publishesPerSec;
const loadAfter = loadavg()[0]!;
printFigures({
  'recording size': `${(text.length / 1024 / 1024).toFixed(1)} MB, ${text.split('\n').length - 1} lines`,
  'recording read and checked (parseRecording)': [parseMs, 'ms'],
  'ingest (bench:ingest load, same run)': [ingest.publishesPerSec, 'publishes/s'],
  'replay at --speed max, with assertions': [messagesPerSec, 'messages/s'],
  'replay: checks (PUBACK reason codes, latest values)': [checksPerSec, 'checks/s'],
  'replay: messages sent / checks passed / failed': `${report.messagesSent} / ${report.checksPassed} / ${report.checksFailed}`,
  'replay: duration': [report.durationMs, 'ms'],
  'ratio replay / ingest (target >= 0.5)': ratioToIngest,
  'ingest while a recording of every device runs': [ingestRecorded.publishesPerSec, 'publishes/s'],
  'its recording': `${((ingestRecorded.recordedBytes ?? 0) / 1024 / 1024).toFixed(1)} MB`,
  'ratio ingest while recording / not (target >= 0.9)': recordingIngestRatio,
  'load average before / after (other processes share the CPUs)': `${loadBefore.toFixed(1)} / ${loadAfter.toFixed(1)}`,
});
if (report.checksFailed) {
  for (const c of report.checks.filter((x) => x.state === 'failed').slice(0, 5))
    console.log(`FAIL ${c.device}: ${c.what}: ${c.mismatches.join('; ')}`);
}
const missed = [
  ratioToIngest < TARGETS.ratioToIngest && 'ratio to ingest',
  recordingIngestRatio < TARGETS.recordingIngestRatio && 'ingest while recording',
  report.checksFailed > 0 && 'every check passes',
].filter(Boolean);
console.log(missed.length ? `targets missed: ${missed.join(', ')}` : 'all targets met');
printBench({
  name: 'replay',
  messagesPerSec,
  checksPerSec,
  ratioToIngest,
  recordingIngestRatio,
  ingestPublishesPerSec: ingest.publishesPerSec,
  recordingIngestPublishesPerSec: ingestRecorded.publishesPerSec,
  checks,
  checksFailed: report.checksFailed,
  loadAverage: loadAfter,
});

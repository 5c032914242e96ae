// npm run bench:startup — `sandboard serve` to its ready line: empty data dir, with 1,000,000 telemetry rows,
// and after kill -9 of a writer that left a journal just under the snapshot threshold (restartAfterKillMs, the median
// of restarts from copies of that data dir).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SNAPSHOT_THRESHOLD, DurableDb } from '../main/store/durable-db.ts';
import { migrations } from '../main/platform/migrations.ts';
import { TelemetryRepository } from '../main/platform/telemetry-repository.ts';
import { percentile, printBench, printFigures } from './lib/bench-output.ts';
import { startServeChild } from './lib/serve-child.ts';
import { ensureDepBundle } from '../scripts/dep-bundle.js';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5);
const ROWS = Number(process.env.BENCH_STARTUP_ROWS ?? 1_000_000);
/** journal bytes left by the killed writer: just under the snapshot threshold */
const JOURNAL_BYTES = Number(
  process.env.BENCH_STARTUP_JOURNAL_BYTES ?? Math.floor(DEFAULT_SNAPSHOT_THRESHOLD * 0.97),
);
const FILLER = fileURLToPath(new URL('./lib/journal-filler.ts', import.meta.url));
/** restarts timed from copies of the one killed data dir (the median is reported) */
const RESTART_RUNS = Number(process.env.BENCH_STARTUP_RESTART_RUNS ?? 3);

/** each scenario's start phases (serve's own marks, ms since its process started), run by run */
const phaseRuns = new Map<string, Record<string, number>[]>();

async function timeStart(dataDir: string, scenario = 'setup'): Promise<number> {
  const serve = await startServeChild(dataDir, { SANDBOARD_STARTUP_TIMINGS: '1' });
  await serve.stop();
  const runs = phaseRuns.get(scenario) ?? [];
  runs.push(serve.phases);
  phaseRuns.set(scenario, runs);
  return serve.readyMs;
}

/** One line per scenario: the median time each phase was reached, in the order serve reaches them. */
function printPhases(): void {
  console.log("start phases (median ms since serve's process started):");
  for (const [scenario, runs] of phaseRuns) {
    if (scenario === 'setup' || runs.length === 0) continue;
    const names = Object.keys(runs[0]!);
    const cells = names.map(
      (name) =>
        `${name} ${Math.round(
          percentile(
            runs.map((r) => r[name] ?? NaN),
            50,
          ),
        )}`,
    );
    console.log(`  ${scenario}: ${cells.join(', ')}`);
  }
}

/** Fills a data dir the way a long demo would: first the platform's own seed, then ROWS datapoints. */
async function fillDataDir(dataDir: string): Promise<void> {
  await timeStart(dataDir);
  const db = await DurableDb.open({ dir: dataDir, migrations });
  const telemetry = new TelemetryRepository(db);
  const devices = 100;
  const keys = ['temperature', 'humidity', 'pressure', 'voltage'];
  const perDevice = Math.ceil(ROWS / devices / keys.length);
  const start = Date.now() - perDevice * 60_000;
  let written = 0;
  for (let d = 1; d <= devices && written < ROWS; d++) {
    const entries: { ts: number; values: Record<string, number> }[] = [];
    for (let i = 0; i < perDevice && written < ROWS; i++) {
      entries.push({
        ts: start + i * 60_000,
        values: Object.fromEntries(keys.map((k, j) => [k, 20 + j + Math.sin(i / 10)])),
      });
      written += keys.length;
    }
    await db.write((w) => telemetry.save(w, 1_000_000 + d, entries));
  }
  await db.close();
}

// the bundle npm install builds (postinstall), built here too when the checkout's node_modules predates it
console.log(
  `typebox bundle (scripts/dep-bundle.js): ${await ensureDepBundle(fileURLToPath(new URL('..', import.meta.url)))}`,
);

const emptyRuns: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-bench-start-'));
  try {
    emptyRuns.push(await timeStart(dir, 'empty'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const bigDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-start-1m-'));
const millionRuns: number[] = [];
try {
  const fillStart = performance.now();
  await fillDataDir(bigDir);
  console.log(
    `filled a data dir with ${ROWS.toLocaleString('en-US')} telemetry rows in ${Math.round(performance.now() - fillStart)} ms`,
  );
  for (let i = 0; i < 3; i++)
    millionRuns.push(await timeStart(bigDir, `${ROWS.toLocaleString('en-US')} rows`));
} finally {
  rmSync(bigDir, { recursive: true, force: true });
}

/** Writes until the journal holds JOURNAL_BYTES, kills the writer with SIGKILL; returns its `filled` line. */
async function killWriter(dataDir: string): Promise<string> {
  const filler = spawn(process.execPath, [FILLER, dataDir, String(JOURNAL_BYTES)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(filler, 'exit');
  const filled = await new Promise<string>((resolve, reject) => {
    createInterface({ input: filler.stdout! }).on('line', (line) => {
      if (line.startsWith('filled ')) resolve(line);
    });
    void exited.then(() => reject(new Error('the journal filler exited before filling')));
  });
  filler.kill('SIGKILL');
  await exited;
  return filled;
}

const killDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-start-kill-'));
const restartRuns: number[] = [];
try {
  await timeStart(killDir);
  const [, bytes, writes] = (await killWriter(killDir)).split(' ');
  console.log(
    `killed a writer (kill -9) after ${Number(writes).toLocaleString('en-US')} writes, journal ${(Number(bytes) / 1048576).toFixed(1)} MiB (snapshot threshold ${(DEFAULT_SNAPSHOT_THRESHOLD / 1048576).toFixed(1)} MiB)`,
  );
  // each restart from a copy of the killed data dir: a restart snapshots it on stop
  for (let i = 0; i < RESTART_RUNS; i++) {
    const copy = `${killDir}-${i}`;
    cpSync(killDir, copy, { recursive: true });
    try {
      restartRuns.push(await timeStart(copy, 'after kill -9'));
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  }
} finally {
  rmSync(killDir, { recursive: true, force: true });
}

printPhases();
const emptyMs = percentile(emptyRuns, 50);
const millionRowsMs = percentile(millionRuns, 50);
const restartAfterKillMs = percentile(restartRuns, 50);
printFigures({
  [`empty data dir, median of ${RUNS} (target < 1000)`]: [emptyMs, 'ms'],
  'empty data dir, slowest': [Math.max(...emptyRuns), 'ms'],
  [`${ROWS.toLocaleString('en-US')} telemetry rows, median of 3`]: [millionRowsMs, 'ms'],
  [`restart after kill -9, journal just under the snapshot threshold, median of ${RESTART_RUNS} (target <= 2000)`]:
    [restartAfterKillMs, 'ms'],
  'restart after kill -9, slowest': [Math.max(...restartRuns), 'ms'],
});
printBench({ name: 'startup', emptyMs, millionRowsMs, restartAfterKillMs });

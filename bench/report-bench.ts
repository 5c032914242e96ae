/**
 * Report API latency: 100 devices x 10,000 points (1,000,000 rows), a table view grouped by device and
 * FULL_DATE with AVG and MAX, built through POST {analytics}/apiAnalytics/publicApi/buildReport by
 * `sandboard serve` in its own process, CONCURRENCY requests at a time. Baseline in the same run: the
 * same statements (the plan's statistics query and the report query, parameters written in) over the
 * same rows (a copy of the store's snapshot file) in Debian's native sqlite3 command, CONCURRENCY
 * processes at a time, in rounds that alternate with the server's so both meet the same machine load.
 * ratioToNative = our p50 / native p50, both at that concurrency.
 * Run: npm run bench:report. Env: BENCH_REPORTS (default 60), BENCH_CONCURRENCY (4), BENCH_ROUNDS (5).
 * Last line: BENCH {"name":"report",...}.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileStatsQuery, inlineParams } from '../main/analytics/report-compiler.ts';
import { prepareReport, trackTextKeys } from '../main/analytics/report-runner.ts';
import { buildReportSpec } from '../main/analytics/report-spec.ts';
import { startInProcessPlatform } from './lib/in-process-platform.ts';
import type { TsEntry } from '../main/platform/telemetry-repository.ts';
import { loadSqlJs } from '../main/store/sqljs.ts';
import type { ReportResponse, TableView, TableViewConfig } from '../shared/schemas/table-view.ts';
import { elapsedMs, percentile, printBench, printFigures } from './lib/bench-output.ts';
import { SQLITE3, sqliteVersion, timeStatements } from './lib/native-sqlite.ts';
import { processCpuMs } from './lib/proc-cpu.ts';
import { startServeChild } from './lib/serve-child.ts';
import { withStallMeter } from './lib/stall-meter.ts';

const DEVICES = 100;
const POINTS = 10_000;
const STEP_MS = 60_000;
// A week ending yesterday: within the telemetry retention the server applies at start.
const START_TS = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 8 * 86_400_000;
const REPORTS = Number(process.env.BENCH_REPORTS ?? 60);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const TENANT = { username: 'tenant@thingsboard.org', password: 'tenant' };
const NATIVE_PRAGMAS = ['PRAGMA temp_store = MEMORY', 'PRAGMA cache_size = -65536']; // as the report workers

async function json<T>(res: Response | Promise<Response>): Promise<T> {
  const r = await res;
  const text = await r.text();
  if (!r.ok) throw new Error(`${r.url} answered ${r.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Loads the rows through the platform's services (in this process), saves the view, stops (snapshot). */
async function prepareDataDir(
  dataDir: string,
): Promise<{ viewId: string; config: TableViewConfig; loadMs: number }> {
  const started = performance.now();
  const platform = await startInProcessPlatform(dataDir);
  try {
    const { services } = platform;
    const profileId = await services.ctx.db.write((w) => {
      const profile = services.profiles.findOrCreate(w, 'Bench Sensor');
      for (let d = 0; d < DEVICES; d++) {
        services.devices.insert(w, {
          name: `Sensor ${String(d).padStart(3, '0')}`,
          profileId: profile.id,
          profileName: profile.name,
          label: null,
          customerId: null,
          info: '{}',
        });
      }
      return profile.id;
    });
    const writes: Promise<number>[] = [];
    for (let d = 0; d < DEVICES; d++) {
      const row = services.devices.findRowByName(`Sensor ${String(d).padStart(3, '0')}`)!;
      const entries: TsEntry[] = [];
      for (let i = 0; i < POINTS; i++) {
        const temperature = Math.round((20 + 5 * Math.sin((i + d * 37) / 240) + (d % 10) / 10) * 1000) / 1000;
        entries.push({ ts: START_TS + i * STEP_MS, values: { temperature } });
      }
      writes.push(services.telemetry.saveTimeseries(row, entries));
      if (writes.length >= 4) await writes.shift();
    }
    await Promise.all(writes);
    const rows = services.ctx.telemetry.countDatapoints();
    if (rows !== DEVICES * POINTS) throw new Error(`stored ${rows} datapoints, expected ${DEVICES * POINTS}`);

    const { token } = await json<{ token: string }>(
      fetch(`${platform.urls.http}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(TENANT),
      }),
    );
    const config: TableViewConfig = {
      entities: { deviceProfileIds: [profileId] },
      dimensions: [{ field: 'DEVICE_NAME' }],
      date: { grouping: 'FULL_DATE' },
      measures: [
        { key: 'temperature', aggregation: 'AVG' },
        { key: 'temperature', aggregation: 'MAX' },
      ],
      timeRange: { type: 'FIXED', startTs: START_TS, endTs: START_TS + POINTS * STEP_MS },
    };
    const view = await json<TableView>(
      fetch(`${platform.urls.http}/api/tableView`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-authorization': `Bearer ${token}` },
        body: JSON.stringify({ name: 'Temperature by sensor per day', config }),
      }),
    );
    return { viewId: view.id.id, config, loadMs: elapsedMs(started) };
  } finally {
    await platform.stop();
  }
}

/**
 * The longest event-loop stall of report preparation, on a platform in this process over the prepared
 * store: cold workers (each seeds its read replica) then CONCURRENCY x 2 reports, as a user opening views.
 */
async function reportStall(dataDir: string, viewId: string): Promise<number> {
  const platform = await startInProcessPlatform(dataDir);
  try {
    const { token } = await json<{ token: string }>(
      fetch(`${platform.urls.http}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(TENANT),
      }),
    );
    const url = `${platform.urls.analytics}/apiAnalytics/publicApi/buildReport?jwt=${token}`;
    const report = async () =>
      (
        await json<ReportResponse>(
          fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ viewConfigId: viewId }),
          }),
        )
      ).dataTable.length;
    const { maxStallMs } = await withStallMeter(() => load(CONCURRENCY * 2, CONCURRENCY, report));
    return maxStallMs;
  } finally {
    await platform.stop();
  }
}

/** CONCURRENCY loops sending reports back to back until `total` are done; every latency and the wall time. */
async function load(total: number, concurrency: number, send: () => Promise<number>) {
  const latencies: number[] = [];
  let left = total;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left--;
        const t = performance.now();
        const rows = await send();
        if (rows === 0) throw new Error('empty report');
        latencies.push(elapsedMs(t));
      }
    }),
  );
  return { latencies, wallMs: elapsedMs(started) };
}

const dataDir = mkdtempSync(join(tmpdir(), 'sandboard-bench-report-'));
try {
  console.log(
    `report benchmark: ${DEVICES} devices x ${POINTS} points, grouped by device and FULL_DATE with AVG and MAX; ` +
      `${REPORTS} reports, ${CONCURRENCY} at a time; ${availableParallelism()} CPU cores`,
  );
  const { viewId, config, loadMs } = await prepareDataDir(dataDir);
  const reportStallMs = await reportStall(dataDir, viewId);
  const nativeDb = join(dataDir, 'native-copy.sqlite');
  copyFileSync(join(dataDir, 'store.sqlite'), nativeDb);

  // The statements a report runs, as the workers would compile them for these rows.
  const SQL = await loadSqlJs();
  const copy = new SQL.Database(readFileSync(nativeDb));
  trackTextKeys(copy); // as every report worker does
  const spec = buildReportSpec(
    config,
    {},
    { now: Date.now(), customerId: null, maxRows: 100_000, overflow: 'error' },
  );
  const prepared = prepareReport(copy, spec);
  copy.close();
  if (!prepared) throw new Error('the report found no data');
  const statements = [inlineParams(compileStatsQuery(spec)), inlineParams(prepared.query)];

  const serve = await startServeChild(dataDir);
  try {
    const url = `${serve.urls.analytics}/apiAnalytics/publicApi/buildReport`;
    const { token } = await json<{ token: string }>(
      fetch(`${serve.urls.http}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(TENANT),
      }),
    );
    let rowsPerReport = 0;
    const report = async () => {
      const body = await json<ReportResponse>(
        fetch(`${url}?jwt=${token}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ viewConfigId: viewId }),
        }),
      );
      rowsPerReport = body.dataTable.length;
      return rowsPerReport;
    };
    // Warm-up: starts the workers (each seeds its replica) and fills their caches.
    await load(CONCURRENCY * 2, CONCURRENCY, report);
    // Rounds alternate between the server and sqlite3, so both meet the same machine load.
    const ours: number[] = [];
    let oursWallMs = 0;
    const native: number[] = [];
    const nativeCpu: number[] = [];
    let serverCpuMs = 0;
    const oursOneAtATime: number[] = [];
    const nativeOneAtATime: number[] = [];
    const perRound = Math.ceil(REPORTS / ROUNDS / CONCURRENCY) * CONCURRENCY;
    for (let round = 0; round < ROUNDS; round++) {
      const cpuBefore = processCpuMs(serve.child.pid!);
      const measured = await load(perRound, CONCURRENCY, report);
      const cpuAfter = processCpuMs(serve.child.pid!);
      if (cpuBefore !== null && cpuAfter !== null) serverCpuMs += cpuAfter - cpuBefore;
      ours.push(...measured.latencies);
      oursWallMs += measured.wallMs;
      const runs = await Promise.all(
        Array.from({ length: CONCURRENCY }, () =>
          timeStatements(nativeDb, statements, perRound / CONCURRENCY, NATIVE_PRAGMAS),
        ),
      );
      for (const run of runs) {
        native.push(...run.real);
        nativeCpu.push(...run.cpu);
      }
      oursOneAtATime.push(...(await load(2, 1, report)).latencies);
      nativeOneAtATime.push(...(await timeStatements(nativeDb, statements, 2, NATIVE_PRAGMAS)).real);
    }

    const p50Ms = percentile(ours, 50);
    const p99Ms = percentile(ours, 99);
    const reportsPerSec = (ours.length / oursWallMs) * 1000;
    const nativeP50Ms = percentile(native, 50);
    // each sqlite3 process runs its statements back to back: CONCURRENCY of them finish one per mean time
    const nativeReportsPerSec = (CONCURRENCY * 1000 * native.length) / native.reduce((a, b) => a + b, 0);
    const ratioToNative = p50Ms / nativeP50Ms;
    const serverCpuPerReport = serverCpuMs / ours.length;
    const nativeCpuPerReport = nativeCpu.reduce((a, b) => a + b, 0) / nativeCpu.length;
    printFigures({
      'data load through the platform services (1,000,000 rows) and snapshot': [loadMs / 1000, 's'],
      'query plan': prepared.plan,
      'report preparation (cold workers), longest event-loop stall (target <= 50)': [reportStallMs, 'ms'],
      'rows per report': rowsPerReport,
      [`report p50 at concurrency ${CONCURRENCY} (target <= 500)`]: [p50Ms, 'ms'],
      [`report p99 at concurrency ${CONCURRENCY}`]: [p99Ms, 'ms'],
      [`reports/s at concurrency ${CONCURRENCY}`]: reportsPerSec,
      'report p50 one at a time': [percentile(oursOneAtATime, 50), 'ms'],
      [`native ${SQLITE3} ${await sqliteVersion()}: p50 at concurrency ${CONCURRENCY}`]: [nativeP50Ms, 'ms'],
      [`native: reports/s at concurrency ${CONCURRENCY}`]: nativeReportsPerSec,
      'native: p50 one at a time': [percentile(nativeOneAtATime, 50), 'ms'],
      'ratio report p50 / native p50 at the same concurrency (target <= 3)': ratioToNative,
      'ratio one at a time': percentile(oursOneAtATime, 50) / percentile(nativeOneAtATime, 50),
      'server CPU per report (all its threads; HTTP, JSON, worker)': [serverCpuPerReport, 'ms'],
      'native CPU per report': [nativeCpuPerReport, 'ms'],
      'ratio of CPU per report (independent of other load on the machine)':
        serverCpuPerReport / nativeCpuPerReport,
    });
    printBench({ name: 'report', p50Ms, p99Ms, reportsPerSec, ratioToNative, reportStallMs });
  } finally {
    await serve.stop();
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Sandbox files: export and import of 1,000 devices with 1M telemetry rows, and trainer mode's reset of a
 * class-sized sandbox (100 devices, a day of history at one point a minute for 3 keys). The import's rate
 * (telemetry rows/s, all or nothing in one journaled write applied over many short event-loop turns) is compared with bench:store's durable insert
 * rate measured in the same run. Run: npm run bench:sandbox. Last line: BENCH {"name":"sandbox",...}.
 * Env: BENCH_SANDBOX_ROWS (default 1,000,000).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv } from '../main/config.ts';
import { openServices } from '../main/app/domain.ts';
import { startInProcessPlatform } from './lib/in-process-platform.ts';
import { migrations } from '../main/platform/migrations.ts';
import type { Services } from '../main/platform/services.ts';
import type { TsEntry } from '../main/platform/telemetry-repository.ts';
import { writeLinesDurably } from '../main/platform/sandbox/sandbox-service.ts';
import { DurableDb } from '../main/store/durable-db.ts';
import { printBench, printFigures } from './lib/bench-output.ts';
import { withStallMeter } from './lib/stall-meter.ts';
import { makeMessages, ROWS_PER_MESSAGE, runDurable } from './lib/durable-insert.ts';

const ROWS = Number(process.env.BENCH_SANDBOX_ROWS ?? 1_000_000);
const DEVICES = 1_000;
const CLASS_DEVICES = 100;
const DAY_MINUTES = 1_440;
const KEYS = ['temperature', 'humidity', 'active'];
const TARGET_IMPORT_RATIO = 0.5;
const TARGET_RESET_S = 3;

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'sandboard-sandbox-bench-'));
  dirs.push(d);
  return d;
};

async function open(dir: string): Promise<{ db: DurableDb; services: Services }> {
  const db = await DurableDb.open({ dir, migrations });
  const config = {
    ...configFromEnv({}),
    dataDir: dir,
    storeBudgetBytes: 0,
    sandboxImportMaxBytes: 2 * 1024 ** 3,
  };
  const services = await openServices(db, Buffer.alloc(32, 1), config);
  await services.profiles.seedDefault();
  return { db, services };
}

/** devices with access tokens, and `perDevice` points a minute apart for each key */
async function populate(s: Services, devices: number, perDevice: number): Promise<number> {
  const profile = s.profiles.getDefault().id.id;
  const now = Date.now();
  await s.ctx.db.write((w) => {
    for (let i = 1; i <= devices; i++) {
      const id = randomUUID();
      w.run(
        'INSERT INTO devices (num, id, created_time, name, type, device_profile_id) VALUES (?, ?, ?, ?, ?, ?)',
        [i, id, now, `Device ${i}`, 'default', profile],
      );
      w.run(
        "INSERT INTO device_credentials (id, created_time, device_id, credentials_type, credentials_id) VALUES (?, ?, ?, 'ACCESS_TOKEN', ?)",
        [randomUUID(), now, id, `token-${i}-${id.slice(0, 8)}`],
      );
    }
  });
  let rows = 0;
  const start = now - perDevice * 60_000;
  for (let d = 1; d <= devices; d++) {
    const entries: TsEntry[] = [];
    for (let m = 0; m < perDevice; m++)
      entries.push({
        ts: start + m * 60_000,
        values: { temperature: 20 + (m % 100) / 10, humidity: 40 + (m % 30), active: m % 2 === 0 },
      });
    rows += await s.ctx.db.write((w) => s.ctx.telemetry.save(w, d, entries));
  }
  return rows;
}

/**
 * The demos a user loads from the UI, each on a fresh platform in this process: the smart-building demo
 * (POST /api/sandboard/demo/smart-building?wait=true) and every shipped sandbox ("Start here" page).
 * The longest event-loop stall of each load, over HTTP as the UI does.
 */
async function demoLoadStalls(): Promise<Record<string, number>> {
  const platform = await startInProcessPlatform(tempDir());
  try {
    const base = platform.urls.http;
    const post = async (path: string, body?: unknown, token?: string) => {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(token ? { 'x-authorization': `Bearer ${token}` } : {}),
        },
        body: JSON.stringify(body ?? {}),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text}`);
      return JSON.parse(text) as { token?: string; data?: { id: string }[] };
    };
    const { token } = await post('/api/auth/login', {
      username: 'tenant@thingsboard.org',
      password: 'tenant',
    });
    const stalls: Record<string, number> = {};
    const meter = async (name: string, path: string) => {
      stalls[name] = (await withStallMeter(() => post(path, undefined, token))).maxStallMs;
    };
    await meter('smart-building demo', '/api/sandboard/demo/smart-building?wait=true');
    const shipped = await fetch(`${base}/api/sandboard/sandboxes/shipped`, {
      headers: { 'x-authorization': `Bearer ${token}` },
    }).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
    for (const { id } of shipped.data)
      await meter(`shipped ${id}`, `/api/sandboard/sandboxes/shipped/${id}/load`);
    return stalls;
  } finally {
    await platform.stop();
  }
}

try {
  const demoStalls = await demoLoadStalls();
  const demoLoadStallMs = Math.max(...Object.values(demoStalls));

  // the store's durable insert rate, as bench:store measures it, in this run
  const storeRun = await runDurable(makeMessages(Math.round(200_000 / ROWS_PER_MESSAGE), 1_700_000_000_000));
  const storeRate = storeRun.rowsPerSec;

  const src = await open(tempDir());
  const rows = await populate(src.services, DEVICES, Math.ceil(ROWS / DEVICES / KEYS.length));
  const file = join(tempDir(), 'big.sandbox.jsonl');
  let t = performance.now();
  await writeLinesDurably(file, src.services.sandbox.exportLines({ history: true, includePasswords: true }));
  const exportS = (performance.now() - t) / 1000;
  const fileMB = statSync(file).size / 1e6;
  await src.db.close();

  const dst = await open(tempDir());
  t = performance.now();
  const parsed = await dst.services.sandbox.read(createReadStream(file), statSync(file).size);
  const readS = (performance.now() - t) / 1000;
  const {
    result,
    maxStallMs: importStallMs,
    maxTurnCpuMs: importTurnCpuMs,
  } = await withStallMeter(() => dst.services.sandbox.apply(parsed, { replaceAll: true }));
  const importS = (performance.now() - t) / 1000;
  if (result.telemetryRows !== rows) throw new Error(`imported ${result.telemetryRows} of ${rows} rows`);
  const importRate = rows / importS;
  // telemetry retention over the imported history: the older half goes
  const { oldest, newest } = dst.db.get<{ oldest: number; newest: number }>(
    'SELECT MIN(ts) AS oldest, MAX(ts) AS newest FROM ts_kv',
  )!;
  t = performance.now();
  const {
    result: sweptRows,
    maxStallMs: retentionStallMs,
    maxTurnCpuMs: retentionTurnCpuMs,
  } = await withStallMeter(() =>
    dst.services.ctx.telemetry.purgeOlderThan(Math.round((oldest + newest) / 2)),
  );
  const retentionS = (performance.now() - t) / 1000;
  await dst.db.close();

  // trainer mode: a class of 100 devices with a day of history
  const cls = await open(tempDir());
  const classRows = await populate(cls.services, CLASS_DEVICES, DAY_MINUTES);
  await cls.services.sandbox.saveClassStart();
  await populate(cls.services, 10, 60).catch(() => undefined); // the class plays (names clash: ignored)
  t = performance.now();
  const { maxStallMs: resetStallMs, maxTurnCpuMs: resetTurnCpuMs } = await withStallMeter(() =>
    cls.services.sandbox.resetToClassStart(),
  );
  const resetS = (performance.now() - t) / 1000;
  await cls.db.close();

  printFigures({
    'sandbox file': [fileMB, `MB (${DEVICES} devices, ${rows} telemetry rows)`],
    export: [exportS, 's'],
    'import (read and check)': [readS, 's'],
    import: [importS, 's, all or nothing in one journaled write, in short turns'],
    'import rate': [importRate, 'telemetry rows/s'],
    'store durable insert rate (bench:store, this run)': [storeRate, 'rows/s'],
    'import / store ratio': [importRate / storeRate, `(target >= ${TARGET_IMPORT_RATIO})`],
    'import, longest event-loop stall (target <= 50)': [importStallMs, 'ms'],
    "import, longest turn's CPU (the stall on a quiet machine)": [importTurnCpuMs ?? 'n/a', 'ms'],
    'retention sweep of the older half': [retentionS, `s (${sweptRows} rows)`],
    'retention sweep, longest event-loop stall (target <= 50)': [retentionStallMs, 'ms'],
    "retention sweep, longest turn's CPU": [retentionTurnCpuMs ?? 'n/a', 'ms'],
    'class-sized reset, longest event-loop stall (target <= 50)': [resetStallMs, 'ms'],
    "class-sized reset, longest turn's CPU": [resetTurnCpuMs ?? 'n/a', 'ms'],
    ...Object.fromEntries(
      Object.entries(demoStalls).map(([k, v]) => [
        `${k} load, longest event-loop stall (target <= 50)`,
        [v, 'ms'],
      ]),
    ),
    'class-sized reset': [
      resetS,
      `s (${CLASS_DEVICES} devices, ${classRows} rows; target <= ${TARGET_RESET_S})`,
    ],
  });
  printBench({
    name: 'sandbox',
    devices: DEVICES,
    rows,
    fileMB,
    exportS,
    importS,
    importRowsPerSec: importRate,
    storeRowsPerSec: storeRate,
    importRatioToStore: importRate / storeRate,
    targetImportRatio: TARGET_IMPORT_RATIO,
    classRows,
    resetS,
    importStallMs,
    importTurnCpuMs,
    retentionRows: sweptRows,
    retentionS,
    retentionStallMs,
    retentionTurnCpuMs,
    resetStallMs,
    resetTurnCpuMs,
    demoLoadStallMs,
    targetResetS: TARGET_RESET_S,
  });
} finally {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/**
 * Durable telemetry insert throughput: DurableDb + TelemetryRepository with group commit (many writes in
 * flight, each acknowledged once its journal group is fdatasynced) against the same rows inserted into a
 * bare in-memory sql.js database (same schema, same INSERT statements, prepared, one transaction per
 * message, no durability). Run: npm run bench:store. Last line: BENCH {"name":"store",...}.
 *
 * Load shape: gateway messages, each with ENTITIES_PER_MESSAGE devices x 3 keys at one timestamp
 * (999 rows), cycling over DEVICES devices. Env: BENCH_ROWS (default 200,000), BENCH_IN_FLIGHT (16).
 */
import type { Database, Statement } from 'sql.js';
import type { DurableDb, Param, Writer } from '../main/store/durable-db.ts';
import { encodeKv } from '../main/platform/kv-value.ts';
import { migrations } from '../main/platform/migrations.ts';
import { TelemetryRepository } from '../main/platform/telemetry-repository.ts';
import { loadSqlJs } from '../main/store/sqljs.ts';
import { percentile, printBench, printFigure, printFigures } from './lib/bench-output.ts';
import {
  cpuMsSince,
  ENTITIES_PER_MESSAGE,
  IN_FLIGHT,
  KEYS,
  makeMessages,
  ROWS_PER_MESSAGE,
  runDurable,
  type DurableResult,
  type Message,
  type RunResult,
} from './lib/durable-insert.ts';

const TARGET_ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET_RATIO = 0.7;

/** The SQL texts TelemetryRepository.save() runs (a key insert, then each datapoint's statements), captured from the repository itself. */
function repositoryStatements(): { insertKey: string; perPoint: string[] } {
  const texts: string[] = [];
  const recorder: Writer = {
    run: (sql) => texts.push(sql),
    all: () => [],
    get: () => undefined,
    onRollback: () => {},
  };
  const fakeDb = { all: () => [] } as unknown as DurableDb;
  new TelemetryRepository(fakeDb).save(recorder, 1, [{ ts: 1, values: { k: 1 } }]);
  const [insertKey, ...perPoint] = texts;
  if (!insertKey || perPoint.length === 0) {
    throw new Error(
      `TelemetryRepository.save() ran ${texts.length} statements, the bench expects a key insert and more`,
    );
  }
  return { insertKey, perPoint };
}

async function runBare(messages: Message[]): Promise<RunResult> {
  const SQL = await loadSqlJs();
  const db: Database = new SQL.Database();
  const migrator: Writer = {
    run: (sql: string, params?: Param[]) => {
      db.run(sql, (params ?? []) as never);
      return db.getRowsModified();
    },
    all: () => [],
    get: () => undefined,
    onRollback: () => {},
  };
  for (const m of migrations) m.up(migrator);
  const sql = repositoryStatements();
  const keyIds = new Map<string, number>();
  const insertKey = db.prepare(sql.insertKey);
  for (const key of Object.keys(messages[0]![0]!.entries[0]!.values)) {
    keyIds.set(key, keyIds.size + 1);
    insertKey.run([keyIds.size, key]);
  }
  insertKey.free();
  const perPoint: Statement[] = sql.perPoint.map((text) => db.prepare(text));

  let rows = 0;
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  for (const message of messages) {
    db.exec('BEGIN');
    for (const { entityNum, entries } of message) {
      for (const { ts, values } of entries) {
        for (const [key, value] of Object.entries(values)) {
          const { t, v } = encodeKv(value);
          const keyId = keyIds.get(key)!;
          for (const stmt of perPoint) stmt.run([entityNum, keyId, ts, t, v]);
          rows++;
        }
      }
    }
    db.exec('COMMIT');
  }
  const ms = performance.now() - started;
  const cpuMs = cpuMsSince(cpuStart);
  const stored = Number(db.exec('SELECT COUNT(*) FROM ts_kv')[0]!.values[0]![0]);
  if (stored !== rows) throw new Error(`bare sql.js stored ${stored} rows instead of ${rows}`);
  for (const stmt of perPoint) stmt.free();
  db.close();
  return { rows, ms, rowsPerSec: (rows / ms) * 1000, cpuMs };
}

const messageCount = Math.max(1, Math.round(TARGET_ROWS / ROWS_PER_MESSAGE));
const messages = makeMessages(messageCount, 1_700_000_000_000);
console.log(
  `store bench: ${messageCount} messages x ${ROWS_PER_MESSAGE} rows (${ENTITIES_PER_MESSAGE} devices x ${KEYS} keys), ` +
    `${IN_FLIGHT} durable writes in flight, median of ${ROUNDS} rounds`,
);

// Warm up both paths (JIT, sql.js module) on a small load.
const warmup = makeMessages(20, 1_600_000_000_000);
await runBare(warmup);
await runDurable(warmup);

// Bare and durable run back to back in every round (alternating which goes first) and the ratio is taken
// per round, so that load from other processes on the machine skews both sides alike; the median round
// is reported.
const rounds: { bare: RunResult; durable: DurableResult; ratio: number }[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  let bareRun: RunResult;
  let durableRun: DurableResult;
  if (round % 2 === 1) {
    bareRun = await runBare(messages);
    durableRun = await runDurable(messages);
  } else {
    durableRun = await runDurable(messages);
    bareRun = await runBare(messages);
  }
  const roundRatio = durableRun.rowsPerSec / bareRun.rowsPerSec;
  printFigure(
    `round ${round}`,
    `bare ${Math.round(bareRun.rowsPerSec)} rows/s (cpu ${Math.round(bareRun.cpuMs)} ms), ` +
      `durable ${Math.round(durableRun.rowsPerSec)} rows/s (cpu ${Math.round(durableRun.cpuMs)} ms), ` +
      `ratio ${roundRatio.toFixed(3)}`,
  );
  rounds.push({ bare: bareRun, durable: durableRun, ratio: roundRatio });
}
rounds.sort((x, y) => x.ratio - y.ratio);
const median = rounds[Math.floor(rounds.length / 2)]!;
const b = median.bare;
const d = median.durable;
const ratio = median.ratio;
const cpuRatio = b.cpuMs / d.cpuMs;
const groupSize = messages.length / Math.max(1, d.groups);
printFigures({
  rows: [d.rows, 'rows'],
  'bare sql.js': [b.rowsPerSec, 'rows/s'],
  'bare sql.js time': [b.ms, `ms (cpu ${Math.round(b.cpuMs)} ms)`],
  'durable (DurableDb + TelemetryRepository)': [d.rowsPerSec, 'rows/s'],
  'durable time': [d.ms, `ms (cpu ${Math.round(d.cpuMs)} ms)`],
  'durable/bare ratio': [ratio, `(target >= ${TARGET_RATIO})`],
  'durable/bare ratio by CPU time': [cpuRatio, '(less sensitive to other load on the machine)'],
  'journal groups (fdatasync)': [d.groups, ''],
  'messages (writes) per group': [groupSize, ''],
  'journal size': [d.journalBytes / 1024 / 1024, 'MiB'],
  'write latency p50': [percentile(d.writeLatencyMs, 50), 'ms'],
  'write latency p99': [percentile(d.writeLatencyMs, 99), 'ms'],
  'close (snapshot) time': [d.closeMs, 'ms'],
  'store size per datapoint': [
    d.bytesPerDatapoint,
    `bytes (a 1 GiB SANDBOARD_STORE_BUDGET_MB holds ~${Math.round((1024 ** 3 * 0.9) / d.bytesPerDatapoint / 1e6)} million before size-based retention)`,
  ],
});
printBench({
  name: 'store',
  rows: d.rows,
  rounds: ROUNDS,
  durableRowsPerSec: d.rowsPerSec,
  bareRowsPerSec: b.rowsPerSec,
  ratio,
  cpuRatio,
  targetRatio: TARGET_RATIO,
  groups: d.groups,
  writeP50Ms: percentile(d.writeLatencyMs, 50),
  writeP99Ms: percentile(d.writeLatencyMs, 99),
  closeMs: d.closeMs,
  bytesPerDatapoint: d.bytesPerDatapoint,
});

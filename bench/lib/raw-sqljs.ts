import type { Statement } from 'sql.js';
import type { DurableDb, Param, Writer } from '../../main/store/durable-db.ts';
import { encodeKv } from '../../main/platform/kv-value.ts';
import { migrations } from '../../main/platform/migrations.ts';
import { TelemetryRepository } from '../../main/platform/telemetry-repository.ts';
import { loadSqlJs } from '../../main/store/sqljs.ts';

/** One datapoint as the platform stores it: device number, key number, ts and value. */
export interface RawRow {
  entityNum: number;
  keyId: number;
  ts: number;
  value: unknown;
}

/** The per-datapoint SQL TelemetryRepository.save() runs (ts_kv insert, ts_kv_latest upsert), taken from it. */
function perDatapointStatements(): string[] {
  const texts: string[] = [];
  const recorder: Writer = {
    run: (sql) => texts.push(sql),
    all: () => [],
    get: () => undefined,
    onRollback: () => {},
  };
  new TelemetryRepository({ all: () => [] } as unknown as DurableDb).save(recorder, 1, [
    { ts: 1, values: { k: 1 } },
  ]);
  return texts.filter((sql) => !/INTO ts_key\b/.test(sql));
}

/**
 * The raw sql.js baseline: the same rows into a bare in-memory sql.js database with the platform's schema
 * (migrations.ts), the repository's statements prepared once, 1,000 rows per transaction, no journal,
 * sql.js's default settings unless pragmas are given. Resolves with rows per second of wall-clock time and
 * of CPU time (this process is single-threaded here, so the second does not depend on other load).
 */
export async function rawSqljsInsertRate(
  rows: RawRow[],
  options: { rowsPerTransaction?: number; pragmas?: string } = {},
): Promise<{ rowsPerSec: number; rowsPerCpuSec: number }> {
  const rowsPerTransaction = options.rowsPerTransaction ?? 1_000;
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  if (options.pragmas) db.exec(options.pragmas);
  const ddl: Writer = {
    run: (sql, params) => (db.run(sql, params as never), 0),
    all: () => [],
    get: () => undefined,
    onRollback: () => {},
  };
  for (const m of migrations) m.up(ddl);
  const statements: Statement[] = perDatapointStatements().map((sql) => db.prepare(sql));
  const encoded = rows.map((r) => {
    const { t, v } = encodeKv(r.value);
    return [r.entityNum, r.keyId, r.ts, t, v] as Param[];
  });
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  for (let i = 0; i < encoded.length; i += rowsPerTransaction) {
    db.run('BEGIN');
    const end = Math.min(i + rowsPerTransaction, encoded.length);
    for (let r = i; r < end; r++) for (const stmt of statements) stmt.run(encoded[r] as never);
    db.run('COMMIT');
  }
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpuStarted);
  for (const stmt of statements) stmt.free();
  db.close();
  return {
    rowsPerSec: (rows.length / ms) * 1000,
    rowsPerCpuSec: (rows.length / (cpu.user + cpu.system)) * 1e6,
  };
}

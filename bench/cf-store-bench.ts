/**
 * npm run bench:cf-store — what storing calculated fields' results costs per row, in this process, without
 * MQTT, rule chain or scripts: the real write path (DurableDb with its journal, TelemetryRepository).
 *
 * Like bench:ingest's calculated fields phase: 1,000 devices, turns of 100 device messages; each message
 * saves its 3 inputs (one write, as the Save Timeseries node does), and with fields the turn's 10 results per
 * message leave in one saveMany write. Prints CPU per device message and per row, and journal bytes per row,
 * for none / with fields in turns (BENCH_TURNS, default 2; BENCH_STORE_TURNS store turns each, default 1500
 * after 300 of warm-up). Snapshots are off, so the figures are the main thread's own.
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../main/platform/migrations.ts';
import { TelemetryRepository, type TsEntry } from '../main/platform/telemetry-repository.ts';
import { DurableDb } from '../main/store/durable-db.ts';
import { printBench, round } from './lib/bench-output.ts';

const DEVICES = 1000;
const MESSAGES_PER_TURN = 100;
const FIELDS = 10;
const WARMUP_TURNS = 300;
const STORE_TURNS = Number(process.env.BENCH_STORE_TURNS ?? 1500);
const BASE = Date.now() - 86_400_000;

interface Run {
  usPerMessage: number;
  usPerRow: number;
  journalBytesPerRow: number;
}

async function run(fields: boolean): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-bench-cf-store-'));
  const db = await DurableDb.open({ dir, migrations, snapshotThresholdBytes: Number.MAX_SAFE_INTEGER });
  const repo = new TelemetryRepository(db);
  const turn = async (i: number) => {
    const writes: Promise<unknown>[] = [];
    const results: { num: number; entries: TsEntry[] }[] = [];
    const ts = BASE + i * 10;
    for (let m = 0; m < MESSAGES_PER_TURN; m++) {
      const num = ((i * MESSAGES_PER_TURN + m) % DEVICES) + 1;
      const values = { temperature: 20 + Math.random(), humidity: 50 + Math.random(), pressure: 1000 };
      writes.push(db.write((w) => repo.save(w, num, [{ ts, values }])));
      if (fields) {
        const out: Record<string, number> = {};
        for (let k = 0; k < FIELDS; k++)
          // half of them full-precision decimals (scripts), half rounded to two places (formulas)
          out[`cf${k}`] = k % 2 ? Math.random() * 100 : Math.round(Math.random() * 10_000) / 100;
        results.push({ num, entries: [{ ts, values: out }] });
      }
    }
    if (fields) writes.push(db.write((w) => repo.saveMany(w, results)));
    await Promise.all(writes);
  };
  const journalBytes = () =>
    readdirSync(dir)
      .filter((f) => f.startsWith('journal-'))
      .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
  try {
    for (let i = 0; i < WARMUP_TURNS; i++) await turn(i);
    const bytesBefore = journalBytes();
    const cpuBefore = process.cpuUsage();
    for (let i = WARMUP_TURNS; i < WARMUP_TURNS + STORE_TURNS; i++) await turn(i);
    const cpu = process.cpuUsage(cpuBefore);
    const messages = STORE_TURNS * MESSAGES_PER_TURN;
    const rows = messages * (3 + (fields ? FIELDS : 0));
    return {
      usPerMessage: (cpu.user + cpu.system) / messages,
      usPerRow: (cpu.user + cpu.system) / rows,
      journalBytesPerRow: (journalBytes() - bytesBefore) / rows,
    };
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const turns = Number(process.env.BENCH_TURNS ?? 2);
const extra: number[] = [];
const ratio: number[] = [];
let last: { none: Run; fields: Run } | undefined;
for (let t = 0; t < turns; t++) {
  const none = await run(false);
  const fields = await run(true);
  last = { none, fields };
  extra.push((fields.usPerMessage - none.usPerMessage) / FIELDS);
  ratio.push(none.usPerMessage / fields.usPerMessage);
  console.log(
    `turn ${t + 1}: none ${round(none.usPerMessage)} us CPU per message (${round(none.usPerRow)} per row, ` +
      `${round(none.journalBytesPerRow)} journal bytes per row); ${FIELDS} results ${round(fields.usPerMessage)} us ` +
      `(${round(fields.usPerRow)} per row, ${round(fields.journalBytesPerRow)} journal bytes per row); ` +
      `a result row adds ${round(extra.at(-1)!)} us; load ${loadavg()[0]!.toFixed(1)}`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
printBench({
  name: 'cf-store',
  usPerResultRow: median(extra),
  storeOnlyRatio: median(ratio),
  noneUsPerMessage: last!.none.usPerMessage,
  fieldsUsPerMessage: last!.fields.usPerMessage,
  journalBytesPerResultRow: last!.fields.journalBytesPerRow,
  turns,
  loadAverage: loadavg()[0]!,
});

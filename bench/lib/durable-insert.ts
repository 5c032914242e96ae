/**
 * bench:store's durable run (DurableDb + TelemetryRepository, group commit, many writes in flight) and its
 * load, shared with benches that compare against the store's durable insert rate in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { DurableDb } from '../../main/store/durable-db.ts';
import { migrations } from '../../main/platform/migrations.ts';
import { TelemetryRepository, type TsEntry } from '../../main/platform/telemetry-repository.ts';

export const DEVICES = 1_000;
export const ENTITIES_PER_MESSAGE = 333;
export const KEYS = 3;
export const ROWS_PER_MESSAGE = ENTITIES_PER_MESSAGE * KEYS;
export const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 16);

export interface DeviceUpdate {
  entityNum: number;
  entries: TsEntry[];
}
export type Message = DeviceUpdate[];

export function makeMessages(count: number, tsBase: number): Message[] {
  const messages: Message[] = [];
  for (let i = 0; i < count; i++) {
    const message: Message = [];
    for (let k = 0; k < ENTITIES_PER_MESSAGE; k++) {
      const entityNum = ((i * ENTITIES_PER_MESSAGE + k) % DEVICES) + 1;
      const values = {
        temperature: 20 + ((i * 7 + k) % 150) / 10 + 0.05,
        humidity: 30 + ((i + k) % 60),
        active: (i + k) % 5 !== 0,
      };
      message.push({ entityNum, entries: [{ ts: tsBase + i, values }] });
    }
    messages.push(message);
  }
  return messages;
}

export interface RunResult {
  rows: number;
  ms: number;
  rowsPerSec: number;
  /** CPU time of the process (all threads, user + system) during the run */
  cpuMs: number;
}

export function cpuMsSince(start: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(start);
  return (user + system) / 1000;
}

export interface DurableResult extends RunResult {
  writeLatencyMs: number[];
  groups: number;
  journalBytes: number;
  closeMs: number;
  /** store size taken by the datapoints, over an empty store: what the size budget is spent on */
  bytesPerDatapoint: number;
}

export async function runDurable(messages: Message[]): Promise<DurableResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sandboard-store-bench-'));
  try {
    const db = await DurableDb.open({ dir, migrations });
    const telemetry = new TelemetryRepository(db);
    const emptyBytes = db.sizeBytes().usedBytes;
    const groupsBefore = db.getStats().groupsCommitted;
    const writeLatencyMs: number[] = [];
    let rows = 0;
    let inFlight = 0;
    let wake: (() => void) | null = null;

    const cpuStart = process.cpuUsage();
    const started = performance.now();
    for (const message of messages) {
      while (inFlight >= IN_FLIGHT) await new Promise<void>((resolve) => (wake = resolve));
      const issued = performance.now();
      inFlight++;
      const saved = db.write((w) => {
        let n = 0;
        for (const { entityNum, entries } of message) n += telemetry.save(w, entityNum, entries);
        return n;
      });
      saved.then(
        (n) => {
          writeLatencyMs.push(performance.now() - issued);
          rows += n;
          inFlight--;
          wake?.();
          wake = null;
        },
        (err: unknown) => {
          throw err;
        },
      );
      // Messages arrive from the network: let the event loop (and the journal I/O) run between them.
      await yieldToLoop();
    }
    await db.flush();
    const ms = performance.now() - started;
    const cpuMs = cpuMsSince(cpuStart);
    const stats = db.getStats();
    const stored = telemetry.countDatapoints();
    if (stored !== rows) throw new Error(`DurableDb stored ${stored} rows instead of ${rows}`);
    const bytesPerDatapoint = (db.sizeBytes().usedBytes - emptyBytes) / rows;
    const closeStarted = performance.now();
    await db.close();
    const closeMs = performance.now() - closeStarted;
    return {
      rows,
      ms,
      rowsPerSec: (rows / ms) * 1000,
      cpuMs,
      writeLatencyMs,
      groups: stats.groupsCommitted - groupsBefore,
      journalBytes: stats.journalBytes,
      closeMs,
      bytesPerDatapoint,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { VerifyReport } from '../../fixtures/store-writer.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

/**
 * Kills a process that writes to a DurableDb with SIGKILL at random moments, again and again on the same
 * directory, and checks after every kill that the store opens and holds every acknowledged write, whole.
 * The writer and the checker are test/fixtures/store-writer.ts (see there for what a write holds): each
 * writer run first checks the store the previous run left (`verify {json}`), then writes until killed.
 */
const FIXTURE = fileURLToPath(new URL('../../fixtures/store-writer.ts', import.meta.url));
const CYCLES = 22;
/** ids of cycle c start at (c + 1) * ID_STRIDE, so every cycle writes new rows */
const ID_STRIDE = 1_000_000;

interface Child {
  proc: ChildProcess;
  /** resolves once the process has exited and its stdout is fully read */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr: () => string;
}

function run(args: string[], onLine: (line: string) => void): Child {
  const proc = spawn(process.execPath, ['--no-warnings', FIXTURE, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.setEncoding('utf8');
  proc.stderr!.on('data', (chunk: string) => {
    stderr += chunk;
  });
  createInterface({ input: proc.stdout! }).on('line', onLine);
  const closed = once(proc, 'close').then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }));
  // Minified sql.js source lines in stack traces would drown the message.
  const trimmed = () =>
    stderr
      .split('\n')
      .filter((line) => line.length < 400)
      .join('\n');
  return { proc, closed, stderr: trimmed };
}

function parseVerify(line: string): VerifyReport | undefined {
  return line.startsWith('verify ') ? (JSON.parse(line.slice('verify '.length)) as VerifyReport) : undefined;
}

async function verifyAlone(dir: string, close: boolean): Promise<VerifyReport> {
  let report: VerifyReport | undefined;
  const child = run(['verify', dir, ...(close ? ['close'] : [])], (line) => {
    report = parseVerify(line) ?? report;
  });
  const { code } = await child.closed;
  if (code !== 0 || !report) throw new Error(`verify exited with ${code}: ${child.stderr()}`);
  return report;
}

function randomInt(min: number, max: number): number {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** What a killed writer run was told was durable. */
interface KilledRun {
  cycle: number;
  firstId: number;
  acks: number;
  lastAck: number;
}

/**
 * Checks a report on the store after `killed`: every earlier run's surviving writes are still there
 * (expectedRuns), and what survives of the killed run is a prefix of its writes, in issue order, that
 * covers every acknowledged one.
 */
function checkAfterKill(report: VerifyReport, killed: KilledRun, expectedRuns: [number, number][]): void {
  const where = `after the kill of cycle ${killed.cycle} (${killed.acks} acks)`;
  expect(report.errors, where).toEqual([]);
  expect(report.ok, where).toBe(true);
  expect(report.runs.slice(0, expectedRuns.length), `${where}: earlier cycles' writes`).toEqual(expectedRuns);
  const rest = report.runs.slice(expectedRuns.length);
  expect(rest.length, `${where}: runs ${JSON.stringify(rest)}`).toBeLessThanOrEqual(1);
  const current = rest[0];
  if (killed.acks > 0) {
    expect(current, `${where}: no write present`).toBeDefined();
    expect(current![1], `${where}: last acknowledged id ${killed.lastAck}`).toBeGreaterThanOrEqual(
      killed.lastAck,
    );
  }
  if (current) {
    expect(current[0], `${where}: first write present`).toBe(killed.firstId);
    expectedRuns.push(current);
  }
}

describe('DurableDb under SIGKILL', () => {
  it('reopens a new store killed before its first snapshot (journal replays the schema migration)', async () => {
    const dir = tempDir('sandboard-crash-');
    let acks = 0;
    let firstAck: () => void = () => {};
    const acked = new Promise<void>((resolve) => (firstAck = resolve));
    const writer = run(['write', dir, String(ID_STRIDE)], (line) => {
      if (line.startsWith('ack ')) {
        acks++;
        firstAck();
      }
    });
    await Promise.race([acked, writer.closed]);
    writer.proc.kill('SIGKILL');
    const { signal } = await writer.closed;
    expect(signal, writer.stderr()).toBe('SIGKILL');
    expect(acks).toBeGreaterThan(0);
    const report = await verifyAlone(dir, false);
    expect(report.errors).toEqual([]);
    expect(report.stats.replayedRecords).toBeGreaterThan(0);
    expect(report.runs[0]?.[0]).toBe(ID_STRIDE);
  });

  it('keeps every acknowledged write of a journal long enough to replay on its own thread', async () => {
    const dir = tempDir('sandboard-crash-');
    const journalBytes = () =>
      readdirSync(dir)
        .filter((name) => name.startsWith('journal-'))
        .reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
    let acks = 0;
    let lastAck = -1;
    let reached: () => void = () => {};
    const long = new Promise<void>((resolve) => (reached = resolve));
    // No snapshot (its threshold is far off): the whole journal, past the 512 KiB from which an open
    // replays it on a worker thread, is replayed, its runs of telemetry inserts in bulk.
    const writer = run(['write', dir, String(ID_STRIDE), String(256 * 1024 * 1024)], (line) => {
      if (!line.startsWith('ack ')) return;
      acks++;
      lastAck = Number(line.slice('ack '.length));
      if (acks % 100 === 0 && journalBytes() >= 1024 * 1024) reached();
    });
    await Promise.race([long, writer.closed]);
    writer.proc.kill('SIGKILL');
    const { signal } = await writer.closed;
    expect(signal, writer.stderr()).toBe('SIGKILL');
    expect(journalBytes()).toBeGreaterThanOrEqual(1024 * 1024);
    const report = await verifyAlone(dir, false);
    checkAfterKill(report, { cycle: 0, firstId: ID_STRIDE, acks, lastAck }, []);
    expect(report.stats.replayedRecords).toBeGreaterThan(100);
    expect(report.rows).toBeGreaterThan(acks * 3);
  });

  it(
    'keeps every acknowledged write across repeated kills at random points',
    { timeout: 300_000 },
    async () => {
      const dir = tempDir('sandboard-crash-');
      const expectedRuns: [number, number][] = [];
      let previous: KilledRun | undefined;
      let totalAcks = 0;
      let snapshots = 0;
      let replayed = 0;
      let tornBytes = 0;
      let earlyKills = 0;
      let killsDuringSnapshot = 0;
      let verifyMs = 0;
      const started = performance.now();

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        const firstId = (cycle + 1) * ID_STRIDE;
        // Mostly kill once writes flow; every fourth cycle kill at any moment, even during open and replay;
        // every fourth while a background snapshot is being written, and every fourth once one is written.
        const early = cycle % 4 === 3;
        const during = cycle % 4 === 1 ? 'snapshotting' : cycle % 4 === 2 ? 'snapshot' : undefined;
        const ackTarget = early ? 0 : randomInt(1, 200);
        const delay = early
          ? randomInt(0, 250)
          : during === 'snapshotting'
            ? randomInt(0, 400)
            : randomInt(20, 300);
        let acks = 0;
        let lastAck = -1;
        let outOfOrder = '';
        let writerSnapshots = 0;
        let inSnapshot = false;
        let report: VerifyReport | undefined;
        let startKillTimer: () => void = () => {};
        const killTimerStarted = new Promise<void>((resolve) => (startKillTimer = resolve));

        const writer = run(['write', dir, String(firstId)], (line) => {
          const [word, value] = line.split(' ');
          if (word === 'ack') {
            const id = Number(value);
            // Writes are acknowledged in the order they were issued (group commit keeps order).
            if (id !== firstId + acks && !outOfOrder) outOfOrder = `ack ${id} after ${acks} acks`;
            acks++;
            lastAck = id;
            if (acks >= ackTarget && !during) startKillTimer();
          } else if (word === 'snapshotting') {
            inSnapshot = true;
            if (during === 'snapshotting') startKillTimer();
          } else if (word === 'snapshot') {
            inSnapshot = false;
            writerSnapshots = Number(value);
            if (during === 'snapshot') startKillTimer();
          } else {
            report = parseVerify(line) ?? report;
          }
        });
        if (ackTarget === 0) startKillTimer();
        let killed = false;
        const exitedEarly = writer.closed.then(({ code }) => {
          if (!killed)
            throw new Error(`writer exited by itself with ${code} in cycle ${cycle}: ${writer.stderr()}`);
        });
        await Promise.race([killTimerStarted, exitedEarly]);
        await Promise.race([new Promise((resolve) => setTimeout(resolve, delay)), exitedEarly]);
        killed = true;
        writer.proc.kill('SIGKILL');
        const { signal } = await writer.closed;
        expect(signal, `writer of cycle ${cycle} should die by SIGKILL: ${writer.stderr()}`).toBe('SIGKILL');
        expect(outOfOrder, `cycle ${cycle}`).toBe('');
        if (early) earlyKills++;
        if (inSnapshot) killsDuringSnapshot++;
        totalAcks += acks;
        snapshots += writerSnapshots;

        // The writer checked the store the previous kill left before writing; a writer killed before it got
        // that far leaves the check to a verify run.
        if (previous) {
          report ??= await verifyAlone(dir, false);
          checkAfterKill(report, previous, expectedRuns);
          replayed += report.stats.replayedRecords;
          tornBytes += report.stats.discardedTailBytes;
          verifyMs += report.verifyMs;
        }
        previous = { cycle, firstId, acks, lastAck };
      }
      // The last kill's check; this run also closes the store (flush, snapshot) and a last one reopens it.
      const runsBeforeLast = [...expectedRuns];
      checkAfterKill(await verifyAlone(dir, true), previous!, expectedRuns);
      checkAfterKill(await verifyAlone(dir, false), previous!, runsBeforeLast);

      const summary = {
        cycles: CYCLES,
        earlyKills,
        killsDuringSnapshot,
        totalAcks,
        snapshots,
        replayed,
        tornBytes,
        verifyMs,
        seconds: Math.round((performance.now() - started) / 1000),
      };
      console.log(`crash test: ${JSON.stringify(summary)}`);
      // The test must be able to fail: writes were acknowledged, snapshots and replays happened.
      expect(totalAcks).toBeGreaterThan(CYCLES * 20);
      expect(expectedRuns.length).toBeGreaterThan(CYCLES / 2);
      expect(snapshots).toBeGreaterThan(0);
      expect(killsDuringSnapshot).toBeGreaterThan(0);
      expect(replayed).toBeGreaterThan(0);
    },
  );
});

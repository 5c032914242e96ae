import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  FAILURE_REASONS,
  formatIssue,
  SIMULATION_LIMITS,
  type SimulatorCost,
  type OtaRunCounts,
  type Scenario,
} from '../../shared/schemas/simulation.ts';
import type { Services } from '../platform/services.ts';
import type { Meter } from './counters.ts';
import { deviceCount, parseScenarioText, runWorkers, ScenarioError, targetLabel } from './scenario.ts';
import { junitXml } from '../../shared/simulation-junit.ts';
import { runReport } from './simulation-report.ts';
import { SimulationRun } from './simulation-run.ts';
import { embeddedUrl, remoteTarget, runGateways, runOtaFleet, type ResolvedTarget } from './targets.ts';
import { openFileLimit } from './mqtt-connection.ts';

export interface SimulateOptions {
  file: string;
  /** mqtt://host:port (or mqtts://) of a running broker; the file's gateway tokens are used */
  platform?: string;
  durationMs?: number;
  /** data dir of the in-process platform (default: a temporary one, removed after the run) */
  dataDir?: string;
  /** write the run's summary here as JSON */
  report?: string;
  /** write the run's summary here as JUnit XML */
  junit?: string;
  /** worker threads the gateways are spread over (0: none; default: the scenario's, else from the cores) */
  workers?: number;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "30s", "5m", "500ms", "1.5h"; a bare number is seconds. */
export function parseDuration(value: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value.trim());
  if (!m) throw new Error(`--duration must look like 30s, 5m, 500ms or 1h, got '${value}'`);
  const ms = Math.round(Number(m[1]) * UNITS[m[2] ?? 's']!);
  if (ms < 1) throw new Error(`--duration must be at least 1ms, got '${value}'`);
  return ms;
}

/** `simulate FILE [--platform URL] [--duration TIME] [--data-dir DIR]`; throws a usage message. */
export function parseSimulateArgs(argv: string[]): SimulateOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      platform: { type: 'string' },
      duration: { type: 'string' },
      'data-dir': { type: 'string' },
      report: { type: 'string' },
      junit: { type: 'string' },
      workers: { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new Error('simulate takes one scenario file');
  const workers = values.workers;
  if (workers !== undefined && (!/^\d+$/.test(workers) || Number(workers) > SIMULATION_LIMITS.workers))
    throw new Error(
      `--workers must be a whole number from 0 to ${SIMULATION_LIMITS.workers}, got '${workers}'`,
    );
  if (values.platform !== undefined && !/^mqtts?:\/\/[^/]+/.test(values.platform))
    throw new Error(`--platform must be mqtt://HOST:PORT or mqtts://HOST:PORT, got '${values.platform}'`);
  return {
    file: positionals[0]!,
    ...(values.platform !== undefined ? { platform: values.platform } : {}),
    ...(values.duration !== undefined ? { durationMs: parseDuration(values.duration) } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: resolve(values['data-dir']) } : {}),
    ...(values.report !== undefined ? { report: resolve(values.report) } : {}),
    ...(values.junit !== undefined ? { junit: resolve(values.junit) } : {}),
    ...(workers !== undefined ? { workers: Number(workers) } : {}),
  };
}

function readScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the scenario file ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    return parseScenarioText(text);
  } catch (err) {
    if (err instanceof ScenarioError)
      throw new Error(`${file}: invalid scenario: ${err.issues.map(formatIssue).join('; ')}`, {
        cause: err,
      });
    throw err;
  }
}

function failures(m: Meter): string {
  if (m.failedByReason.size === 0) return '';
  const parts = [...m.failedByReason].map(([reason, n]) =>
    reason.startsWith('0x') && FAILURE_REASONS[reason]
      ? `${reason} ${FAILURE_REASONS[reason]}: ${n}`
      : `${reason}: ${n}`,
  );
  return ` (${parts.join(', ')})`;
}

/** "cpu main 3% w1 41% w2 39%": the simulator's threads, in % of one core over the last second. */
function cpuText(cost: SimulatorCost): string {
  const shown = cost.workers ? cost.threads.slice(1) : cost.threads;
  return `cpu ${shown.map((t) => `${t.thread === 'main' ? 'main' : `w${t.thread.slice(7)}`} ${t.cpuPct.toFixed(0)}%`).join(' ')}`;
}

/** One line per simulator thread: what driving its gateways cost it, per publish and per value. */
export function costLines(cost: SimulatorCost): string[] {
  const us = (v: number | null) => (v === null ? '-' : `${v.toFixed(1)} µs`);
  return cost.threads
    .filter((t) => t.thread !== 'main' || cost.workers === 0)
    .map(
      (t) =>
        `simulator ${t.thread}: ${t.gateways} gateways, ${t.sent} publishes, ${t.datapoints} values; ` +
        `CPU ${us(t.cpuUsPerPublish)} per publish, ${us(t.cpuUsPerValue)} per value` +
        (t.thread === 'main' && cost.sharedWithPlatform
          ? ' (this thread also runs the in-process platform)'
          : ''),
    );
}

/** "OTA: 95 of 100 updated, 5 failed (Checksum verification failed: 5), ..." */
function otaLine(ota: OtaRunCounts): string {
  const reasons = Object.entries(ota.failedByReason).map(([r, n]) => `${r}: ${n}`);
  const pending = ota.devices - ota.updated - ota.failed;
  return (
    `OTA: ${ota.updated} of ${ota.devices} updated, ${ota.failed} failed${reasons.length ? ` (${reasons.join(', ')})` : ''}` +
    `${pending ? `, ${pending} not finished` : ''}; ${ota.failingOnPurpose} failing on purpose`
  );
}

function progressLine(run: SimulationRun): string {
  const m = run.meter;
  const elapsed = (run.elapsedMs() / 1000).toFixed(0).padStart(4);
  const connected = run.gateways.filter((g) => g.state === 'connected').length;
  const retrying = run.gateways.filter((g) => g.state === 'reconnecting').length;
  const ota = run.otaCounts();
  return (
    `[${elapsed}s] sent ${m.sent} | acked ${m.acknowledged} | failed ${m.failed}${failures(m)} | ` +
    `${retrying ? `${retrying} retrying | ` : ''}${cpuText(run.cost())} | ` +
    `${m.messagesPerSecond().toFixed(1)} msg/s | ${connected}/${run.gateways.length} gateways connected` +
    (ota ? ` | OTA ${ota.updated} updated, ${ota.failed} failed of ${ota.devices}` : '')
  );
}

/** A warning when the scenario's connections come near the open-file limit, which then bounds the run. */
function openFileWarning(connections: number): string | null {
  const limit = openFileLimit();
  // the process itself holds some files (modules, the store, an embedded platform's sockets)
  if (limit === null || connections + 100 < limit) return null;
  return `sandboard simulate: ${connections} gateway connections come near the open-file limit (ulimit -n: ${limit}); gateways past it are retried and reported; raise it (ulimit -n 65535) to go further\n`;
}

/**
 * Runs a scenario headless: against --platform, a remote target, or an in-process platform for an
 * embedded one. Prints a progress line (in place on a terminal, one per second otherwise); resolves
 * with the exit code. Throws with a clear message on a bad file or a refused connection.
 */
/** An in-process platform, for an embedded scenario: started by the caller (the composition root's). */
export interface EmbeddedPlatform {
  urls: { http: string; mqtt: string };
  services: Services;
  stop(): Promise<void>;
}

export type StartEmbedded = (dataDir: string) => Promise<EmbeddedPlatform>;

export async function runSimulate(
  options: SimulateOptions,
  startEmbedded: StartEmbedded,
  out: NodeJS.WriteStream = process.stdout,
): Promise<number> {
  const scenario = readScenario(options.file);
  let platform: EmbeddedPlatform | undefined;
  let tempDir: string | undefined;
  let target: ResolvedTarget;
  if (options.platform) {
    const missing = scenario.gateways.findIndex((g) => !g.token);
    if (missing >= 0)
      throw new Error(
        `${options.file}: gateways[${missing}].token: is required with --platform (the gateway access token)`,
      );
    target = { url: options.platform.replace(/\/+$/, '') };
    if (scenario.ota)
      throw new Error(
        `${options.file}: ota: is only for the in-process platform (its devices are created there with their tokens); leave out --platform`,
      );
    if (scenario.setup)
      process.stderr.write(
        "sandboard simulate: the scenario's setup (device profiles, assets) is left out with --platform (it is set up only on the in-process platform)\n",
      );
  } else if (scenario.target?.kind === 'remote') {
    target = remoteTarget(scenario.target);
  } else {
    tempDir = options.dataDir ? undefined : mkdtempSync(join(tmpdir(), 'sandboard-simulate-'));
    const dataDir = options.dataDir ?? tempDir!;
    platform = await startEmbedded(dataDir);
    process.stderr.write(
      `sandboard simulate: in-process platform at ${platform.urls.http} (MQTT ${platform.urls.mqtt}), data in ${dataDir}${tempDir ? ' (removed at the end)' : ''}\n`,
    );
    target = { url: embeddedUrl(platform.urls.mqtt), services: platform.services };
  }

  const tty = out.isTTY === true;
  let ticker: NodeJS.Timeout | undefined;
  const onSignal = () => void run?.stop('stopped');
  let run: SimulationRun | undefined;
  try {
    const gateways = await runGateways(scenario, target);
    const ota = await runOtaFleet(scenario, target);
    run = new SimulationRun({
      gateways,
      ...(ota ? { ota, awaitOta: scenario.ota?.package !== undefined } : {}),
      durationMs: options.durationMs ?? scenario.durationMs,
      maxPeriods: scenario.messages,
      workers: runWorkers(scenario, options.workers, platform !== undefined),
      sharedWithPlatform: platform !== undefined,
      ...(scenario.faults ? { faults: scenario.faults } : {}),
    });
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    const connections = scenario.gateways.length + (scenario.ota?.devicesCount ?? 0);
    const warning = openFileWarning(connections * (platform ? 2 : 1));
    if (warning) process.stderr.write(warning);
    const r = run;
    if (r.shards.length)
      process.stderr.write(
        `sandboard simulate: ${scenario.gateways.length} gateways spread over ${r.shards.length} worker thread${r.shards.length === 1 ? '' : 's'}\n`,
      );
    let toldLimit = false;
    const print = () => {
      const limited = toldLimit ? null : r.openFileLimitReached();
      if (limited) {
        toldLimit = true;
        process.stderr.write(`sandboard simulate: ${limited}\n`);
      }
      const line = progressLine(r);
      out.write(tty ? `\r${line}\x1b[K` : `${line}\n`);
    };
    // progress from the start: a large fleet's gateways take a while to connect their devices
    ticker = setInterval(print, 1000);
    await run.start();
    await run.whenEnded();
    clearInterval(ticker);
    print();
    if (tty) out.write('\n');
    const m = run.meter;
    for (const line of costLines(run.cost())) out.write(`${line}\n`);
    out.write(
      `done (${run.finishReason}) after ${(run.elapsedMs() / 1000).toFixed(1)}s: sent ${m.sent}, acked ${m.acknowledged}, ` +
        `failed ${m.failed}${failures(m)}, ${m.telemetryMessages} telemetry messages, ${m.datapoints} values\n`,
    );
    for (const g of run.gateways) {
      if (g.state === 'reconnecting')
        out.write(`gateway '${g.plan.name}' not connected at the end: ${g.status().error}\n`);
      else if (g.connectRetries > 0)
        out.write(`gateway '${g.plan.name}': ${g.connectRetries} connection retries\n`);
    }
    for (const f of run.faults.list()) {
      const answers = Object.entries(f.answers).map(([a, n]) => `${a} ${n}`);
      out.write(
        `fault faults[${f.index}] ${f.kind} (${f.target}): injected ${f.injected}${answers.length ? `; answered ${answers.join(', ')}` : ''}\n`,
      );
    }
    const otaCounts = run.otaCounts();
    if (otaCounts) out.write(`${otaLine(otaCounts)}\n`);
    if (m.scriptCalls > 0 || m.scriptErrors > 0)
      out.write(`device scripts: ${m.scriptCalls} hook calls, ${m.scriptErrors} errors\n`);
    for (const e of [...run.scriptLog.list()].reverse().slice(0, 20))
      out.write(
        `script error: ${e.device ?? `every device of ${e.gateway}`}${e.hook ? ` ${e.hook}` : ''}${e.line !== null ? ` line ${e.line}` : ''}: ${e.message}${e.stopped ? ' (stopped)' : ''}\n`,
      );
    if (options.report || options.junit) {
      const report = runReport(
        run,
        {
          id: randomUUID(),
          name: scenario.name,
          target: options.platform ?? targetLabel(scenario),
          gateways: scenario.gateways.length,
          devices: deviceCount(scenario),
        },
        null,
      );
      if (options.report) writeFileSync(options.report, `${JSON.stringify(report, null, 2)}\n`);
      if (options.junit) writeFileSync(options.junit, junitXml(report));
    }
    if (run.state === 'failed') throw new Error(run.lastError ?? 'the simulation failed');
    return 0;
  } finally {
    if (ticker) clearInterval(ticker);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await run?.stop('stopped');
    await platform?.stop();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
  }
}

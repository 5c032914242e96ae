/**
 * A simulation run's summary as JUnit XML, so that a simulation is a test in CI. Shared: the server
 * answers it and the UI downloads it.
 */
import { FAILURE_REASONS, FAULT_ANSWERS, type SimulationReport } from './schemas/simulation.ts';

const xml = (s: string) =>
  s.replace(
    /[<>&"']/g,
    (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!,
  );

const reasonText = (r: string) => FAULT_ANSWERS[r] ?? FAILURE_REASONS[r] ?? r;

interface Case {
  name: string;
  failure?: string;
  out?: string;
}

/**
 * The report as JUnit XML, so that a simulation is a test in CI: the run ends well, what was sent is
 * acknowledged (publishes refused outside the faults fail it), every RPC is answered, and each fault was
 * injected (its answers in system-out).
 */
export function junitXml(r: SimulationReport): string {
  const cases: Case[] = [];
  const ended = r.state === 'failed' || r.finishReason === 'error';
  cases.push({
    name: 'run ends without an error',
    ...(ended ? { failure: r.lastError ?? 'the run failed' } : {}),
    out: `finish: ${r.finishReason ?? 'still running'}, ${r.durationMs} ms`,
  });
  const refusedList = Object.entries(r.refusedByReason)
    .map(([k, n]) => `${k} (${reasonText(k)}): ${n}`)
    .join('\n');
  cases.push({
    name: 'publishes are acknowledged',
    ...(r.refused > 0 && r.faults.length === 0 ? { failure: `${r.refused} refused:\n${refusedList}` } : {}),
    out: `sent ${r.sent}, acknowledged ${r.acknowledged}, refused ${r.refused}${refusedList ? `\n${refusedList}` : ''}${
      r.latencyMs
        ? `\nPUBACK latency ms: p50 ${r.latencyMs.p50.toFixed(1)}, p90 ${r.latencyMs.p90.toFixed(1)}, p99 ${r.latencyMs.p99.toFixed(1)}, max ${r.latencyMs.max.toFixed(1)}`
        : ''
    }`,
  });
  const silent = r.faults.filter((f) => f.kind === 'rpcSilent').reduce((n, f) => n + f.injected, 0);
  const unanswered = r.rpcRequests - r.rpcAnswered - silent;
  cases.push({
    name: 'RPC requests are answered',
    ...(unanswered > 0 ? { failure: `${unanswered} of ${r.rpcRequests} RPC requests not answered` } : {}),
    out: `requests ${r.rpcRequests}, answered ${r.rpcAnswered}${silent ? `, left unanswered by rpcSilent ${silent}` : ''}`,
  });
  if (r.scriptCalls > 0 || r.scriptErrors > 0)
    cases.push({
      name: 'device scripts run without errors',
      ...(r.scriptErrors > 0
        ? {
            failure: `${r.scriptErrors} script error(s), ${r.scriptedDevicesStopped} device(s) stopped (the simulation page lists them with the line)`,
          }
        : {}),
      out: `hook calls ${r.scriptCalls}, errors ${r.scriptErrors}, devices stopped ${r.scriptedDevicesStopped}`,
    });
  if (r.ota) {
    const o = r.ota;
    const pending = o.devices - o.updated - o.failed;
    const reasons = Object.entries(o.failedByReason)
      .map(([k, n]) => `${k}: ${n}`)
      .join('\n');
    const wrong =
      pending > 0
        ? `${pending} of ${o.devices} OTA devices did not finish their update (was a package assigned to their profile?)`
        : o.failed !== o.failingOnPurpose
          ? `${o.failed} OTA devices failed, ${o.failingOnPurpose} were to fail on purpose`
          : null;
    cases.push({
      name: 'OTA devices update, failing only on purpose',
      ...(wrong ? { failure: wrong } : {}),
      out: `devices ${o.devices}, updated ${o.updated}, failed ${o.failed} (on purpose ${o.failingOnPurpose})${reasons ? `\n${reasons}` : ''}`,
    });
  }
  for (const f of r.faults) {
    cases.push({
      name: `faults[${f.index}] ${f.kind} (${f.target})`,
      ...(f.injected === 0 ? { failure: 'never injected (did the run end before it was due?)' } : {}),
      out: `injected ${f.injected}; answered ${
        Object.entries(f.answers)
          .map(([a, n]) => `${a} ${n}`)
          .join(', ') || 'nothing'
      }`,
    });
  }
  const failures = cases.filter((c) => c.failure).length;
  const seconds = (r.durationMs / 1000).toFixed(3);
  const body = cases
    .map(
      (c) =>
        `    <testcase classname="${xml(`simulation.${r.name}`)}" name="${xml(c.name)}" time="0">\n` +
        (c.failure
          ? `      <failure message="${xml(c.failure.split('\n')[0]!)}">${xml(c.failure)}</failure>\n`
          : '') +
        (c.out ? `      <system-out>${xml(c.out)}</system-out>\n` : '') +
        `    </testcase>`,
    )
    .join('\n');
  const props = [
    ['alarmsRaised', r.alarmsRaised === null ? 'unknown' : String(r.alarmsRaised)],
    ['faultsInjected', String(r.faultsInjected)],
    ['telemetryMessages', String(r.telemetryMessages)],
    ['datapoints', String(r.datapoints)],
    ...(r.ota
      ? [
          ['otaUpdated', String(r.ota.updated)],
          ['otaFailed', String(r.ota.failed)],
        ]
      : []),
    ['target', r.target],
  ]
    .map(([k, v]) => `      <property name="${k}" value="${xml(v!)}"/>`)
    .join('\n');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="Sandboard simulation" tests="${cases.length}" failures="${failures}" time="${seconds}">\n` +
    `  <testsuite name="${xml(r.name)}" tests="${cases.length}" failures="${failures}" errors="0" time="${seconds}" timestamp="${new Date(r.startedAt).toISOString().slice(0, 19)}">\n` +
    `    <properties>\n${props}\n    </properties>\n${body}\n  </testsuite>\n</testsuites>\n`
  );
}

import type { SimulationReport } from '../../shared/schemas/simulation.ts';
import type { SimulationRun } from './simulation-run.ts';

/** What a run's report says about the scenario it ran. */
export interface ReportSubject {
  id: string;
  name: string;
  target: string;
  gateways: number;
  devices: number;
}

/** The summary of a run (so far, while it runs). */
export function runReport(
  run: SimulationRun,
  subject: ReportSubject,
  alarmsRaised: number | null,
): SimulationReport {
  const m = run.meter;
  const faults = run.faults.list();
  return {
    ...subject,
    state: run.state,
    finishReason: run.finishReason,
    lastError: run.lastError,
    startedAt: run.startedAt ?? 0,
    stoppedAt: run.stoppedAt,
    durationMs: run.elapsedMs(),
    sent: m.sent,
    acknowledged: m.acknowledged,
    refused: m.failed,
    refusedByReason: Object.fromEntries(m.failedByReason),
    telemetryMessages: m.telemetryMessages,
    datapoints: m.datapoints,
    faultsInjected: faults.reduce((n, f) => n + f.injected, 0),
    faults,
    alarmsRaised,
    rpcRequests: m.rpcRequests,
    rpcAnswered: m.rpcAnswered,
    scriptCalls: m.scriptCalls,
    scriptErrors: m.scriptErrors,
    scriptedDevicesStopped: run.gateways.reduce((n, g) => n + g.scriptedDevicesStopped, 0),
    latencyMs: m.latency.percentiles(),
    ...(run.ota ? { ota: run.otaCounts()! } : {}),
  };
}

import { junitSuiteXml, type JunitCase } from '../../shared/junit-xml.ts';
import type { ReplayReport } from '../../shared/schemas/replay.ts';

/**
 * A replay's report as JUnit XML: per device one case for its answers (reason codes and statuses as
 * recorded), then one case per outcome check (latest values, alarms, RPC answers, edge events), each
 * failure naming the device, what, expected and actual.
 */
export function replayJunitXml(report: ReplayReport, timestamp = new Date(report.startedAt)): string {
  const cases: JunitCase[] = [];
  for (const a of report.answers) {
    const failures = report.checks
      .filter((c) => c.kind === 'answer' && c.device === a.device)
      .map((c) => `${c.what} at ${c.t} ms: ${c.mismatches.join('; ')}`);
    if (a.failed && !failures.length) failures.push(`${a.failed} answers differed`);
    cases.push({
      name: `${a.device}: answers (reason codes, HTTP statuses)`,
      durationMs: 0,
      failures,
      out: `${a.passed} as recorded, ${a.failed} not`,
    });
  }
  for (const c of report.checks) {
    if (c.kind === 'answer') continue;
    cases.push({
      name: `${c.device}: ${c.what} at ${c.t} ms`,
      durationMs: c.durationMs,
      failures: c.mismatches.map((m) => `${c.device}: ${c.what}: ${m}`),
      ...(c.state === 'skipped' ? { skipped: c.note ?? 'skipped' } : {}),
    });
  }
  if (report.error) cases.push({ name: 'the replay runs', durationMs: 0, failures: [report.error] });
  return junitSuiteXml(
    { tool: 'sandboard replay', name: report.recording, durationMs: report.durationMs, cases },
    timestamp,
  );
}

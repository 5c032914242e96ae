import type { ChainTestReport } from '../../../shared/schemas/chain-tests.ts';

const escapeXml = (text: string) =>
  text
    // characters XML 1.0 cannot hold at all
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

/**
 * The report as JUnit XML (testsuites > testsuite > testcase > failure), as CI systems read it: one suite
 * for the chain, one test case per case, a failure element naming each mismatch.
 */
export function junitXml(report: ChainTestReport, timestamp = new Date()): string {
  const name = escapeXml(report.chain);
  const total = report.cases.length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="sandboard test-chain" tests="${total}" failures="${report.failed}" errors="0" time="${seconds(report.durationMs)}">`,
    `  <testsuite name="${name}" tests="${total}" failures="${report.failed}" errors="0" skipped="0" time="${seconds(report.durationMs)}" timestamp="${timestamp.toISOString().slice(0, 19)}">`,
  ];
  for (const c of report.cases) {
    const open = `    <testcase name="${escapeXml(c.name)}" classname="${name}" time="${seconds(c.durationMs)}"`;
    if (c.passed) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    lines.push(
      `      <failure message="${escapeXml(c.failures[0] ?? 'failed')}" type="AssertionError">${escapeXml(c.failures.join('\n'))}</failure>`,
    );
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

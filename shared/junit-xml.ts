/**
 * JUnit XML (testsuites > testsuite > testcase > failure | skipped | system-out), as CI systems read it:
 * `sandboard test-chain` and `sandboard replay` write their reports with it.
 */

export const escapeXml = (text: string): string =>
  text
    // characters XML 1.0 cannot hold at all
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const seconds = (ms: number) => (ms / 1000).toFixed(3);

export interface JunitCase {
  name: string;
  durationMs: number;
  /** each mismatch; none: it passed */
  failures: string[];
  /** why it was not run (a skipped case has no failures) */
  skipped?: string;
  out?: string;
}

export interface JunitSuite {
  /** the testsuites element's name: "sandboard test-chain" */
  tool: string;
  /** the suite's name, also each case's classname */
  name: string;
  durationMs: number;
  cases: JunitCase[];
}

/** One suite of cases, a failure element naming each mismatch of a case. */
export function junitSuiteXml(suite: JunitSuite, timestamp = new Date()): string {
  const name = escapeXml(suite.name);
  const total = suite.cases.length;
  const failed = suite.cases.filter((c) => c.failures.length).length;
  const skipped = suite.cases.filter((c) => !c.failures.length && c.skipped !== undefined).length;
  const time = seconds(suite.durationMs);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${escapeXml(suite.tool)}" tests="${total}" failures="${failed}" errors="0" time="${time}">`,
    `  <testsuite name="${name}" tests="${total}" failures="${failed}" errors="0" skipped="${skipped}" time="${time}" timestamp="${timestamp.toISOString().slice(0, 19)}">`,
  ];
  for (const c of suite.cases) {
    const open = `    <testcase name="${escapeXml(c.name)}" classname="${name}" time="${seconds(c.durationMs)}"`;
    const body: string[] = [];
    if (c.failures.length)
      body.push(
        `      <failure message="${escapeXml(c.failures[0]!)}" type="AssertionError">${escapeXml(c.failures.join('\n'))}</failure>`,
      );
    else if (c.skipped !== undefined) body.push(`      <skipped message="${escapeXml(c.skipped)}"/>`);
    if (c.out) body.push(`      <system-out>${escapeXml(c.out)}</system-out>`);
    if (!body.length) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`, ...body, '    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

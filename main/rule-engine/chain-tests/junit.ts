import type { ChainTestReport } from '../../../shared/schemas/chain-tests.ts';
import { junitSuiteXml } from '../../../shared/junit-xml.ts';

/**
 * The report as JUnit XML (testsuites > testsuite > testcase > failure), as CI systems read it: one suite
 * for the chain, one test case per case, a failure element naming each mismatch.
 */
export function junitXml(report: ChainTestReport, timestamp = new Date()): string {
  return junitSuiteXml(
    {
      tool: 'sandboard test-chain',
      name: report.chain,
      durationMs: report.durationMs,
      cases: report.cases.map((c) => ({
        name: c.name,
        durationMs: c.durationMs,
        failures: c.passed ? [] : c.failures.length ? c.failures : ['failed'],
      })),
    },
    timestamp,
  );
}

import { describe, expect, it } from 'vitest';
import type { ChainTestReport } from '../../../../shared/schemas/chain-tests.ts';
import { junitXml } from '../../../../main/rule-engine/chain-tests/junit.ts';
import { junitCases, junitProblems } from '../../../helpers/junit-schema.ts';

const report = (cases: ChainTestReport['cases']): ChainTestReport => ({
  chain: 'Alarms & <limits> "v2"',
  ruleChainId: 'c1',
  passed: cases.filter((c) => c.passed).length,
  failed: cases.filter((c) => !c.passed).length,
  durationMs: 1234,
  cases,
});
const result = (name: string, failures: string[]) => ({
  name,
  passed: failures.length === 0,
  failures,
  durationMs: 12.5,
  relations: {},
  trace: [],
});

describe('the JUnit report of a chain test', () => {
  it('is valid JUnit XML whatever the names and mismatches hold (markup, quotes, control characters)', () => {
    const xml = junitXml(
      report([
        result('passes <always>', []),
        result('fails & says "why"', ['data.t: expected 1, got 2', 'bell \u0007 and <tag> & "quote"']),
      ]),
    );
    expect(junitProblems(xml)).toEqual([]);
    expect(xml).toContain(
      '<testsuite name="Alarms &amp; &lt;limits&gt; &quot;v2&quot;" tests="2" failures="1"',
    );
    const cases = junitCases(xml);
    expect(cases.map((c) => c.name)).toEqual(['passes &lt;always&gt;', 'fails &amp; says &quot;why&quot;']);
    expect(cases[1]!.failure).toContain('data.t: expected 1, got 2\nbell \uFFFD and &lt;tag&gt;');
  });

  it('the schema check itself rejects what CI would: wrong nesting, missing names, counts that do not add up', () => {
    const good = junitXml(report([result('a', ['x'])]));
    expect(junitProblems(good)).toEqual([]);
    expect(
      junitProblems(good.replace('failures="1" errors="0" skipped', 'failures="0" errors="0" skipped')),
    ).toContain('testsuite failures="0" but 1 failed testcases');
    expect(junitProblems(good.replace(' classname=', ' class='))).toContain('<testcase> lacks classname');
    expect(junitProblems(good.replace('</testcase>', ''))).not.toEqual([]);
    expect(junitProblems(good.replace('type="AssertionError">x', 'type="AssertionError">a & b'))).toContain(
      'a bare & in text',
    );
    expect(junitProblems('<?xml version="1.0"?><testcase name="a" classname="b"/>')).toContain(
      'the root is <testcase>, not <testsuites> or <testsuite>',
    );
  });
});

import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { RuleChainFile } from '../../shared/rule-engine.ts';
import {
  chainFileIssues,
  chainTestsIssues,
  type CaseResult,
  type ChainTests,
} from '../../shared/schemas/chain-tests.ts';
import type { JsonPathIssue } from '../../shared/schemas/json-path-issues.ts';
import { junitXml } from '../rule-engine/chain-tests/junit.ts';
import { runChainTests } from '../rule-engine/chain-tests/run-cases.ts';
import { importIntoScratch } from '../rule-engine/chain-tests/scratch-chains.ts';
import { startScratchRules } from './scratch-rules.ts';

/** A chain or cases file larger than this is refused (the REST import's limit). */
const FILE_MAX_BYTES = 16 * 1024 * 1024;

export const TEST_CHAIN_USAGE = `Usage: sandboard test-chain CHAIN.json CASES.json [--report junit.xml]

Runs a rule chain (the file ThingsBoard's or Sandboard's "Export rule chain" saves) against a fresh
in-memory Sandboard with the cases in CASES.json (docs/rule-chain-tests.md), and says for each case
whether the chain did what it expects.
  --report FILE   also write a JUnit XML report to FILE
Exit code: 0 every case passed, 1 a case failed (each mismatch is named), 2 a file is malformed
(or the report cannot be written).
`;

/** A file that cannot be used; the message names the file and the JSON path. */
export class TestChainInputError extends Error {}

function readJson(path: string): unknown {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new TestChainInputError(
      `${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  if (size > FILE_MAX_BYTES)
    throw new TestChainInputError(`${path}: is ${size} bytes, more than the ${FILE_MAX_BYTES} allowed`);
  const text = readFileSync(path, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new TestChainInputError(`${path}: is not JSON (${(err as Error).message})`);
  }
}

function refuse(path: string, issues: JsonPathIssue[]): never {
  const lines = issues.slice(0, 20).map((i) => `  ${i.path || '(document)'}: ${i.message}`);
  if (issues.length > 20) lines.push(`  … and ${issues.length - 20} more`);
  throw new TestChainInputError(`${path} is not valid:\n${lines.join('\n')}`);
}

export function readTestChainFiles(
  chainPath: string,
  casesPath: string,
): { chain: RuleChainFile; cases: ChainTests } {
  const chain = readJson(chainPath);
  const chainIssues = chainFileIssues(chain);
  if (chainIssues.length) refuse(chainPath, chainIssues);
  const cases = readJson(casesPath);
  const caseIssues = chainTestsIssues(cases);
  if (caseIssues.length) refuse(casesPath, caseIssues);
  return { chain: chain as RuleChainFile, cases: cases as ChainTests };
}

function caseLines(c: CaseResult): string {
  const head = `${c.passed ? 'PASS' : 'FAIL'}  ${c.name} (${Math.round(c.durationMs)} ms)`;
  return [head, ...c.failures.map((f) => `        ${f}`)].join('\n') + '\n';
}

/** `sandboard test-chain`: its exit code. */
export async function runTestChainCommand(
  argv: string[],
  out: NodeJS.WritableStream = process.stdout,
  err: NodeJS.WritableStream = process.stderr,
): Promise<number> {
  let chainPath: string, casesPath: string, reportPath: string | undefined;
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { report: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      out.write(TEST_CHAIN_USAGE);
      return 0;
    }
    if (positionals.length !== 2)
      throw new TestChainInputError('test-chain needs two files: CHAIN.json CASES.json');
    [chainPath, casesPath] = positionals as [string, string];
    reportPath = values.report;
  } catch (e) {
    err.write(`${(e as Error).message}\n\n${TEST_CHAIN_USAGE}`);
    return 2;
  }
  let files: ReturnType<typeof readTestChainFiles>;
  try {
    files = readTestChainFiles(chainPath, casesPath);
  } catch (e) {
    if (!(e instanceof TestChainInputError)) throw e;
    err.write(`sandboard test-chain: ${e.message}\n`);
    return 2;
  }
  const rules = await startScratchRules();
  try {
    const chainId = await importIntoScratch(rules, files.chain);
    out.write(`Rule chain '${files.chain.ruleChain.name}': ${files.cases.cases.length} case(s)\n`);
    const report = await runChainTests(rules, chainId, files.cases, {
      onCase: (c) => out.write(caseLines(c)),
    });
    if (reportPath) {
      try {
        writeFileSync(reportPath, junitXml(report));
      } catch (e) {
        err.write(
          `sandboard test-chain: the report cannot be written to ${reportPath}: ${(e as Error).message}\n`,
        );
        return 2;
      }
    }
    out.write(
      `${report.passed} passed, ${report.failed} failed${reportPath ? ` (JUnit report: ${reportPath})` : ''}\n`,
    );
    return report.failed === 0 ? 0 : 1;
  } finally {
    await rules.stop();
  }
}

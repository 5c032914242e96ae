import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runTestChainCommand } from '../../../../main/app/test-chain-command.ts';
import { junitCases, junitProblems } from '../../../helpers/junit-schema.ts';
import { SANDBOARD_BIN } from '../../../helpers/serve-process.ts';
import { tempDir } from '../../../helpers/temp-dir.ts';

const FIXTURES = fileURLToPath(new URL('../../../fixtures/chain-tests/', import.meta.url));
const CHAIN = join(FIXTURES, 'thermostat-chain.json');
const CASES = join(FIXTURES, 'thermostat-cases.json');

type Cases = {
  cases: { name: string; input: Record<string, unknown>; expect: Record<string, unknown> }[];
};
const cases = (): Cases => JSON.parse(readFileSync(CASES, 'utf8')) as Cases;

function writeJson(value: unknown): string {
  const path = join(tempDir(), 'file.json');
  writeFileSync(path, JSON.stringify(value));
  return path;
}

/** The command in this process, its output collected. */
async function testChain(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out = new PassThrough();
  const err = new PassThrough();
  const chunks = { out: '', err: '' };
  out.on('data', (d: Buffer) => (chunks.out += d.toString()));
  err.on('data', (d: Buffer) => (chunks.err += d.toString()));
  const code = await runTestChainCommand(argv, out, err);
  return { code, ...chunks };
}

describe('sandboard test-chain', () => {
  it('passes a thermostat chain (switch, script, alarm nodes) exported from ThingsBoard, through bin/sandboard.js, and writes a valid JUnit report', async () => {
    const report = join(tempDir(), 'junit.xml');
    const child = spawn(process.execPath, [SANDBOARD_BIN, 'test-chain', CHAIN, CASES, '--report', report], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('PASS  a hot reading in Fahrenheit raises High Temperature');
    expect(stdout).toContain('3 passed, 0 failed');
    const xml = readFileSync(report, 'utf8');
    expect(junitProblems(xml)).toEqual([]);
    expect(junitCases(xml)).toEqual(cases().cases.map((c) => ({ name: c.name, failure: null })));
  });

  it('fails naming each mismatch when the chain does something else, and the JUnit report carries them', async () => {
    const file = cases();
    const hot = file.cases[0]!.expect as Record<string, unknown>;
    hot.latest = { temperature: 50 };
    hot.alarms = { created: [{ type: 'High Temperature', severity: 'CRITICAL' }] };
    (file.cases[1]!.expect.relations as Record<string, unknown>)['Too hot'] = 'True';
    const report = join(tempDir(), 'junit.xml');
    const scratchDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith('sandboard-chain-test-'));
    const before = scratchDirs();
    const run = await testChain(CHAIN, writeJson(file), '--report', report);
    expect(run.code).toBe(1);
    expect(scratchDirs(), 'the scratch platform is removed after the run').toEqual(before);
    expect(run.out).toContain('FAIL  a hot reading in Fahrenheit raises High Temperature');
    expect(run.out).toContain('latest temperature: expected 50, got 55');
    expect(run.out).toContain("alarm 'High Temperature' created: expected severity CRITICAL, got MAJOR");
    expect(run.out).toContain("node 'Too hot': expected it to emit True, it emitted False");
    expect(run.out).toContain('PASS  attributes do not go through');
    expect(run.out).toContain('1 passed, 2 failed');
    const xml = readFileSync(report, 'utf8');
    expect(junitProblems(xml)).toEqual([]);
    const [first, second, third] = junitCases(xml);
    expect(first!.failure).toContain('latest temperature: expected 50, got 55');
    expect(second!.failure).toContain('expected it to emit True');
    expect(third!.failure).toBeNull();
  });

  it('notices a changed script: the Celsius conversion off by a degree fails, within a tolerance it passes', async () => {
    const chain = JSON.parse(readFileSync(CHAIN, 'utf8')) as {
      metadata: { nodes: { name: string; configuration: Record<string, string> }[] };
    };
    const script = chain.metadata.nodes.find((n) => n.name === 'To Celsius')!;
    for (const key of ['tbelScript', 'jsScript'])
      script.configuration[key] = script.configuration[key]!.replace('* 5 / 9', '* 5 / 9 + 0.4');
    const chainPath = writeJson(chain);
    const strict = await testChain(chainPath, CASES);
    expect(strict.code).toBe(1);
    expect(strict.out).toMatch(
      /node 'Save Timeseries': no message that reached it matches .*data\.temperature: expected 55, got 55\.4/,
    );
    const file = cases();
    const hot = file.cases[0]!.expect as { messages: Record<string, unknown>[]; tolerance?: number };
    hot.messages[0]!.tolerance = 0.5;
    hot.tolerance = 0.5;
    const tolerant = await testChain(chainPath, writeJson(file));
    expect(tolerant.out).toContain('3 passed, 0 failed');
    expect(tolerant.code).toBe(0);
  });

  it('says which JSON path of a malformed cases file is wrong, and exits 2 without running anything', async () => {
    const file = cases() as unknown as { cases: Record<string, unknown>[] };
    delete (file.cases[0]!.input as Record<string, unknown>).type;
    (file.cases[1]!.expect as Record<string, unknown>).alarms = { raised: [] };
    const run = await testChain(CHAIN, writeJson(file));
    expect(run.code).toBe(2);
    expect(run.out).toBe('');
    expect(run.err).toContain('cases[0].input.type: is required');
    expect(run.err).toContain('cases[1].expect.alarms.raised: is not allowed here');

    const newer = await testChain(CHAIN, writeJson({ ...cases(), version: 2 }));
    expect(newer.code).toBe(2);
    expect(newer.err).toContain('version: is 2, written for a newer Sandboard');

    const notJson = join(tempDir(), 'cases.json');
    writeFileSync(notJson, '{"version": 1,');
    const broken = await testChain(CHAIN, notJson);
    expect(broken.code).toBe(2);
    expect(broken.err).toContain(`${notJson}: is not JSON`);
  });

  it('says which JSON path of a malformed chain file is wrong, and exits 2', async () => {
    const chain = JSON.parse(readFileSync(CHAIN, 'utf8')) as {
      metadata: { connections: { toIndex: number }[] };
    };
    chain.metadata.connections[1]!.toIndex = 42;
    const run = await testChain(writeJson(chain), CASES);
    expect(run.code).toBe(2);
    expect(run.err).toContain('metadata.connections[1].toIndex: is 42, the chain has 6 nodes');
    const usage = await testChain(CHAIN);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('test-chain needs two files');
  });
});

describe('docs/rule-chain-tests.md', () => {
  it('shows the cases file the tests above run, so the documented example passes as it is', () => {
    const doc = readFileSync(
      fileURLToPath(new URL('../../../../docs/rule-chain-tests.md', import.meta.url)),
      'utf8',
    );
    const first = /```json\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(JSON.parse(first)).toEqual(cases());
  });
});

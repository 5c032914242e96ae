import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { RuleChainFile } from '../../../../shared/rule-engine.ts';
import type { ChainTests } from '../../../../shared/schemas/chain-tests.ts';
import { startScratchRules } from '../../../../main/app/scratch-rules.ts';
import { runChainTests } from '../../../../main/rule-engine/chain-tests/run-cases.ts';
import { importIntoScratch } from '../../../../main/rule-engine/chain-tests/scratch-chains.ts';

const fixture = <T>(name: string) =>
  JSON.parse(
    readFileSync(fileURLToPath(new URL(`../../../fixtures/chain-tests/${name}`, import.meta.url)), 'utf8'),
  ) as T;

describe('a chain test run', () => {
  it('stops running cases once its time is up and reports those left as not run', async () => {
    const rules = await startScratchRules();
    onTestFinished(() => rules.stop());
    const chainId = await importIntoScratch(rules, fixture<RuleChainFile>('thermostat-chain.json'));
    const report = await runChainTests(rules, chainId, fixture<ChainTests>('thermostat-cases.json'), {
      maxDurationMs: 0,
    });
    expect(report).toMatchObject({ passed: 0, failed: 3 });
    expect(report.cases[0]!.failures).toEqual(['not run: the test run took longer than the 0 s it may']);
  });
});

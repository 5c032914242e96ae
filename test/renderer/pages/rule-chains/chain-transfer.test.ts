import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readChainFile } from '../../../../renderer/src/pages/rule-chains/chain-transfer.ts';

/** A chain as ThingsBoard 4.x's UI exports it (the same file the e2e import test uses). */
const THERMOSTAT = readFileSync(
  new URL('../../../../e2e/fixtures/thingsboard-thermostat-chain.json', import.meta.url),
  'utf8',
);

describe('chain files', () => {
  it("reads a chain exported from ThingsBoard's UI", () => {
    const read = readChainFile(THERMOSTAT);
    expect(read.kind).toBe('chain');
    if (read.kind !== 'chain') return;
    expect(read.file.ruleChain.name).toBe('Thermostat alarms');
    expect(read.file.metadata.nodes).toHaveLength(5);
  });

  it('tells one chain from several (RuleChainData, /api/ruleChains/export)', () => {
    expect(readChainFile('{"ruleChain": {"name": "A"}, "metadata": {"nodes": []}}').kind).toBe('chain');
    expect(readChainFile('{"ruleChains": [], "metadata": []}').kind).toBe('chains');
  });

  it('says why a file is neither', () => {
    expect(readChainFile('nope')).toMatchObject({
      kind: 'invalid',
      reason: expect.stringMatching(/not JSON/),
    });
    for (const text of ['[1]', '{"name": "x"}', '{"ruleChain": {}, "metadata": []}', 'null'])
      expect(readChainFile(text), text).toMatchObject({
        kind: 'invalid',
        reason: expect.stringMatching(/holds no rule chain/),
      });
  });
});

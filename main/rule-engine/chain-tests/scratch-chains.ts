import { NODE_TYPES, type RuleChainFile } from '../../../shared/rule-engine.ts';
import { readMetadata } from '../chain-metadata.ts';
import { importChainFile } from '../rule-chain-transfer.ts';
import type { RuleChainRow, RuleChainService } from '../rule-chain-service.ts';
import { ruleEnginePrincipal } from '../rule-engine-principal.ts';
import type { ScratchRules } from './run-cases.ts';

/** A file exported from ThingsBoard (or Sandboard), imported into the scratch platform: its new chain id. */
export async function importIntoScratch(rules: ScratchRules, file: RuleChainFile): Promise<string> {
  const { ruleChain } = await importChainFile(rules.ruleChains, file, ruleEnginePrincipal(rules.services));
  return ruleChain.id.id;
}

/** The chain and every chain its rule chain nodes call, however deep. */
function chainsCalledFrom(source: RuleChainService, chainId: string): RuleChainRow[] {
  const rows = new Map<string, RuleChainRow>();
  const pending = [chainId];
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (rows.has(id)) continue;
    const row = source.rowOrUndefined(id);
    if (!row) continue;
    rows.set(id, row);
    for (const n of readMetadata(row.metadata).nodes)
      if (n.type === NODE_TYPES.ruleChainInput && typeof n.configuration.ruleChainId === 'string')
        pending.push(n.configuration.ruleChainId);
  }
  return [...rows.values()];
}

/**
 * Copies a running chain (with the chains it calls) into the scratch platform as it is stored, ids and
 * all: the test's trace names the running chain's nodes, so the editor highlights them.
 */
export async function copyIntoScratch(
  rules: ScratchRules,
  source: RuleChainService,
  chainId: string,
): Promise<void> {
  const rows = chainsCalledFrom(source, chainId);
  const target = rules.ruleChains;
  await target.ctx.db.write((w) => {
    for (const row of rows) {
      const chain = source.toRuleChain(row);
      target.insertChain(
        w,
        row.id,
        { ...chain, type: row.type as 'CORE' | 'EDGE', root: false },
        readMetadata(row.metadata),
      );
    }
  });
  for (const row of rows)
    if (row.type === 'CORE') target.engine.loadChain(row.id, row.name, readMetadata(row.metadata));
}

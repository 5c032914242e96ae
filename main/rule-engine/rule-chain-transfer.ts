import { randomUUID } from 'node:crypto';
import {
  NODE_TYPES,
  type RuleChain,
  type RuleChainData,
  type RuleChainFile,
  type RuleChainImportResult,
  type RuleChainMetadata,
} from '../../shared/rule-engine.ts';
import { requireTenantAdmin, type Principal } from '../platform/auth/principal.ts';
import { ref } from '../platform/context.ts';
import { errorText } from './rule-node.ts';
import { readMetadata, withRuleChainNodes, type StoredMetadata } from './chain-metadata.ts';
import type { RuleChainService } from './rule-chain-service.ts';

/** A node as a file carries it: no id, chain or creation time (ThingsBoard's prepareExport). */
function exportNodes(md: StoredMetadata): RuleChainMetadata['nodes'] {
  return md.nodes.map((n) => ({
    type: n.type,
    name: n.name,
    debugSettings: n.debugSettings,
    singletonMode: n.singletonMode,
    queueName: n.queueName,
    configurationVersion: n.configurationVersion,
    configuration: n.configuration,
    additionalInfo: n.additionalInfo,
  }));
}

/** Rule chain nodes that call a chain whose id changes follow it. */
function retarget(md: RuleChainMetadata, from: string, to: string): void {
  for (const n of md.nodes)
    if (n.type === NODE_TYPES.ruleChainInput && n.configuration.ruleChainId === from)
      n.configuration = { ...n.configuration, ruleChainId: to };
  for (const c of md.ruleChainConnections ?? [])
    if (c.targetRuleChainId.id === from) c.targetRuleChainId.id = to;
}

/** One chain as ThingsBoard's UI exports it: {"ruleChain": {...}, "metadata": {...}}. */
export function exportChainFile(service: RuleChainService, id: string, actor: Principal): RuleChainFile {
  requireTenantAdmin(actor);
  const row = service.row(id);
  const chain = service.toRuleChain(row);
  const md = readMetadata(row.metadata);
  return {
    ruleChain: {
      additionalInfo: chain.additionalInfo,
      name: chain.name,
      type: chain.type as 'CORE' | 'EDGE',
      firstRuleNodeId: null,
      root: false,
      debugMode: chain.debugMode,
      configuration: chain.configuration,
    },
    metadata: {
      version: md.version,
      firstNodeIndex: md.firstNodeIndex,
      nodes: exportNodes(md),
      connections: md.connections,
      ruleChainConnections: null,
      ...(md.notes ? { notes: md.notes } : {}),
    },
  };
}

/**
 * Imports one file as ThingsBoard's UI exports it, as a new chain (never the root). Rule chain nodes keep
 * the chain ids they name; old files' chain links become rule chain nodes. Nodes of classes Sandboard does
 * not run are kept, shown as unsupported and fail their messages.
 */
export async function importChainFile(
  service: RuleChainService,
  file: RuleChainFile,
  actor: Principal,
): Promise<{ ruleChain: RuleChain; metadata: ReturnType<RuleChainService['view']> }> {
  requireTenantAdmin(actor);
  const chain = await service.save(
    {
      name: file.ruleChain.name,
      type: file.ruleChain.type ?? 'CORE',
      root: false,
      debugMode: file.ruleChain.debugMode ?? false,
      configuration: file.ruleChain.configuration ?? null,
      additionalInfo: file.ruleChain.additionalInfo ?? null,
    },
    actor,
  );
  const md = withRuleChainNodes(
    {
      ...(file.metadata as RuleChainMetadata),
      ruleChainId: undefined,
      version: undefined,
      nodes: file.metadata.nodes.map((n) => ({ ...n, id: undefined })),
    },
    (id) => service.rowOrUndefined(id)?.name,
  );
  const metadata = await service.saveMetadata(chain.id.id, md, actor, { strict: false });
  return { ruleChain: service.get(chain.id.id, actor), metadata };
}

/** GET /api/ruleChains/export: chains with fresh ids (and rule chain nodes following them), nodes without. */
export function exportChains(service: RuleChainService, limit: number, actor: Principal): RuleChainData {
  requireTenantAdmin(actor);
  const rows = service.rows().slice(0, limit);
  const ids = new Map(rows.map((r) => [r.id, randomUUID()]));
  const metadata = rows.map((r) => {
    const md = readMetadata(r.metadata);
    const out: RuleChainMetadata & { ruleChainId: { entityType: 'RULE_CHAIN'; id: string } } = {
      ruleChainId: ref('RULE_CHAIN', ids.get(r.id)!),
      version: md.version,
      firstNodeIndex: md.firstNodeIndex,
      nodes: exportNodes(md),
      connections: md.connections,
      ruleChainConnections: null,
    };
    for (const [from, to] of ids) retarget(out, from, to);
    return out;
  });
  const ruleChains = rows.map((r) => {
    const c = service.toRuleChain(r);
    return {
      id: ref('RULE_CHAIN', ids.get(r.id)!),
      name: c.name,
      type: c.type as 'CORE' | 'EDGE',
      root: c.root,
      debugMode: c.debugMode,
      firstRuleNodeId: null,
      configuration: c.configuration,
      additionalInfo: c.additionalInfo,
    };
  });
  return { ruleChains, metadata };
}

/**
 * POST /api/ruleChains/import: every chain new (never root) unless `overwrite` and a chain of the same name
 * and type exists, which is then replaced and keeps its root flag. One chain's failure is reported in its
 * result and does not stop the others.
 */
export async function importChains(
  service: RuleChainService,
  data: RuleChainData,
  overwrite: boolean,
  actor: Principal,
): Promise<RuleChainImportResult[]> {
  requireTenantAdmin(actor);
  // a full store refuses the whole import (507) rather than each chain in its result
  await service.ctx.admit?.();
  const metadata = data.metadata.map(
    (m) => structuredClone(m) as RuleChainMetadata & { ruleChainId: { id: string } },
  );
  const results: RuleChainImportResult[] = [];
  const saved = new Map<string, string>(); // file id -> stored id
  for (const chain of data.ruleChains) {
    const type = chain.type ?? 'CORE';
    const existing = overwrite
      ? service.ctx.db.get<{ id: string; root: number }>(
          'SELECT id, root FROM rule_chains WHERE name = ? AND type = ? ORDER BY created_time LIMIT 1',
          [chain.name, type],
        )
      : undefined;
    try {
      const stored = await service.save(
        {
          id: existing ? { id: existing.id } : undefined,
          name: chain.name,
          type,
          root: existing ? existing.root === 1 : false,
          debugMode: chain.debugMode ?? false,
          configuration: chain.configuration ?? null,
          additionalInfo: chain.additionalInfo ?? null,
        },
        actor,
      );
      saved.set(chain.id.id, stored.id.id);
      results.push({
        ruleChainId: stored.id,
        ruleChainName: chain.name,
        ...(existing ? { updated: true } : {}),
      });
    } catch (err) {
      results.push({ ruleChainId: null, ruleChainName: chain.name, error: errorText(err) });
    }
  }
  for (const md of metadata) for (const [from, to] of saved) retarget(md, from, to);
  for (const md of metadata) {
    const target = saved.get(md.ruleChainId.id);
    if (!target) continue;
    try {
      const prepared = withRuleChainNodes(
        { ...md, version: undefined, nodes: md.nodes.map((n) => ({ ...n, id: undefined })) },
        (id) => service.rowOrUndefined(id)?.name,
      );
      await service.saveMetadata(target, prepared, actor, { strict: false });
    } catch (err) {
      const result = results.find((r) => r.ruleChainId?.id === target);
      if (result) result.error = errorText(err);
    }
  }
  return results;
}

/**
 * Rule chains as the editor manages them (list, create, rename, delete, root, import / export) and the
 * debug side (a node's events through ThingsBoard's events API, a message's trace): ThingsBoard's REST
 * paths, typed with the server's TypeBox shapes and sent through the one API client's request helper.
 */
import type { PageData } from '../../../shared/schemas/common.ts';
import type {
  DebugEventInfo,
  MessageTraceEvent,
  RuleChain,
  RuleChainData,
  RuleChainFile,
  RuleChainImportResult,
  RuleChainMetadata,
  RuleChainType,
  SaveRuleChainRequest,
} from '../../../shared/rule-engine.ts';
import type { ApiClient } from './client.ts';

export type {
  DebugEventInfo,
  MessageTraceEvent,
  RuleChain,
  RuleChainData,
  RuleChainFile,
  RuleChainImportResult,
  RuleChainType,
};

const enc = encodeURIComponent;

/** Every chain of a type, by name (ThingsBoard's list is paged; a tenant has few chains). */
export async function ruleChainsOfType(client: ApiClient, type: RuleChainType): Promise<RuleChain[]> {
  const out: RuleChain[] = [];
  for (let page = 0; page < 20; page++) {
    const data = await client.request<PageData<RuleChain>>('GET', '/api/ruleChains', {
      query: { type, page, pageSize: 100, sortProperty: 'name', sortOrder: 'ASC' },
    });
    out.push(...data.data);
    if (!data.hasNext) break;
  }
  return out;
}

/** Creates a chain (no id) or renames one (the whole chain, with its new name). */
export function saveRuleChain(client: ApiClient, body: SaveRuleChainRequest): Promise<RuleChain> {
  return client.request('POST', '/api/ruleChain', { body });
}

export function deleteRuleChain(client: ApiClient, id: string): Promise<void> {
  return client.request('DELETE', `/api/ruleChain/${enc(id)}`);
}

/** A CORE chain becomes the root chain; an EDGE chain the template root new edges get. */
export function setRootRuleChain(client: ApiClient, chain: RuleChain): Promise<RuleChain> {
  const id = enc(chain.id.id);
  return client.request(
    'POST',
    chain.type === 'EDGE' ? `/api/ruleChain/${id}/edgeTemplateRoot` : `/api/ruleChain/${id}/root`,
  );
}

/** One chain as ThingsBoard's UI exports it: {"ruleChain": {...}, "metadata": {...}}. */
export function exportRuleChainFile(client: ApiClient, id: string): Promise<RuleChainFile> {
  return client.request('GET', `/api/sandboard/ruleChain/${enc(id)}/export`);
}

/** Imports one chain file (ThingsBoard's UI export) as a new chain. */
export function importRuleChainFile(
  client: ApiClient,
  file: RuleChainFile,
): Promise<{ ruleChain: RuleChain; metadata: RuleChainMetadata }> {
  return client.request('POST', '/api/sandboard/ruleChain/import', { body: file });
}

/** Imports several chains (ThingsBoard's RuleChainData, /api/ruleChains/export). */
export function importRuleChains(client: ApiClient, data: RuleChainData): Promise<RuleChainImportResult[]> {
  return client.request('POST', '/api/ruleChains/import', { body: data });
}

/** The names of a chain's output nodes: the relations of a rule chain node that calls it. */
export function ruleChainOutputLabels(client: ApiClient, id: string): Promise<string[]> {
  return client.request('GET', `/api/ruleChain/${enc(id)}/output/labels`);
}

/** A node's debug events, newest first (the server keeps the last 100 of each node). */
export function nodeDebugEvents(client: ApiClient, nodeId: string): Promise<PageData<DebugEventInfo>> {
  return client.request('GET', `/api/events/RULE_NODE/${enc(nodeId)}/DEBUG_RULE_NODE`, {
    query: { page: 0, pageSize: 100, sortProperty: 'ts', sortOrder: 'DESC' },
  });
}

export function clearNodeDebugEvents(client: ApiClient, nodeId: string): Promise<void> {
  return client.request('POST', `/api/events/RULE_NODE/${enc(nodeId)}/clear`, {
    body: { eventType: 'DEBUG_RULE_NODE' },
  });
}

/** Every recorded event of one message and what it became, across nodes and chains, by time. */
export function messageTrace(client: ApiClient, traceId: string): Promise<MessageTraceEvent[]> {
  return client.request('GET', `/api/sandboard/ruleEngine/trace/${enc(traceId)}`);
}

/** What a chain file holds: one chain as ThingsBoard's UI exports it, or several (RuleChainData). */
import type { RuleChainData, RuleChainFile } from '../../api/rule-chains-api.ts';

export type ChainFileContents =
  | { kind: 'chain'; file: RuleChainFile }
  | { kind: 'chains'; data: RuleChainData }
  | { kind: 'invalid'; reason: string };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Reads a file's text: which of the two shapes it is, or why it is neither. */
export function readChainFile(text: string): ChainFileContents {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', reason: `The file is not JSON: ${(err as Error).message}` };
  }
  if (!isObject(json)) return { kind: 'invalid', reason: 'The file holds no rule chain (not a JSON object)' };
  if (isObject(json.ruleChain) && isObject(json.metadata))
    return { kind: 'chain', file: json as unknown as RuleChainFile };
  if (Array.isArray(json.ruleChains) && Array.isArray(json.metadata))
    return { kind: 'chains', data: json as unknown as RuleChainData };
  return {
    kind: 'invalid',
    reason:
      'The file holds no rule chain: expected {"ruleChain": …, "metadata": …} (a chain exported from ThingsBoard) or {"ruleChains": […], "metadata": […]}',
  };
}

import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { RULE_NODE_CONFIGURATION_SCHEMAS } from '../../../shared/rule-node-schemas.ts';
import { schemaValidator } from '../config-schema.ts';
import type { NodeDefinition } from '../rule-node.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const inputSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.ruleChainInput]!;
const outputSchema = RULE_NODE_CONFIGURATION_SCHEMAS[NODE_TYPES.ruleChainOutput]!;

/**
 * The rule chain node: the message goes through another chain (or the originator's profile chain) and comes
 * back on the relations named like that chain's output nodes.
 */
export const ruleChainInputNode: NodeDefinition = {
  type: NODE_TYPES.ruleChainInput,
  label: 'Rule Chain',
  componentType: 'FLOW',
  description: 'Transfers the message to another rule chain',
  relations: ['Failure'],
  customRelations: true,
  ruleChainNode: true,
  version: 1,
  upgrade: (from, config) =>
    from === 0 && !('forwardMsgToDefaultRuleChain' in config)
      ? { ...config, forwardMsgToDefaultRuleChain: false }
      : config,
  defaultConfiguration: { forwardMsgToDefaultRuleChain: false },
  configurationSchema: inputSchema,
  validate: schemaValidator(inputSchema),
  create: (config, _env, node) => {
    const target = config.ruleChainId;
    if (target === undefined || target === null) throw new Error('Rule chain must be set!');
    if (typeof target !== 'string' || !UUID.test(target))
      throw new Error(`Failed to parse rule chain id: ${String(target)}`);
    const toDefault = config.forwardMsgToDefaultRuleChain === true;
    return {
      async process(msg, run) {
        const chainId = (toDefault ? node?.defaultRuleChainOf(msg.originator) : undefined) ?? target;
        if (node && chainId === node.ruleChainId)
          throw new Error(
            `TbRuleChainInputNode in rule chain [${chainId}] is configured to forward messages back to the same rule chain it belongs to. This would cause an infinite loop. Please check the rule chain configuration.`,
          );
        if (!run) throw new Error('The rule chain node runs only inside the rule engine');
        return run.input(chainId, msg);
      },
    };
  },
};

/** The output node: gives the message back to the calling chain, on a relation named like this node. */
export const ruleChainOutputNode: NodeDefinition = {
  type: NODE_TYPES.ruleChainOutput,
  label: 'Output',
  componentType: 'FLOW',
  description: 'transfers the message to the caller rule chain',
  relations: [],
  outEnabled: false,
  defaultConfiguration: { version: 0 },
  configurationSchema: outputSchema,
  validate: schemaValidator(outputSchema),
  // The engine hands the message to the caller itself; this runs only outside a nested call.
  create: () => ({ process: () => [] }),
};

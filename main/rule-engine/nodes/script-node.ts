import type { TbMsg } from '../../platform/tb-msg.ts';
import { failure, type NodeDefinition, type NodeOutput } from '../rule-node.ts';
import { checkScriptConfig, RuleScript, scriptOwner } from '../script/rule-script.ts';

/**
 * A node that is its script (filter, switch, transformation): the script is compiled when the chain is
 * saved, run in the sandbox for each message, and any failure sends the message to Failure with the reason.
 */
export function scriptNodeDefinition(
  base: Pick<NodeDefinition, 'type' | 'label' | 'relations' | 'defaultConfiguration'> &
    Pick<Partial<NodeDefinition>, 'componentType' | 'description' | 'customRelations'>,
  run: (script: RuleScript, msg: TbMsg) => Promise<NodeOutput[]>,
): NodeDefinition {
  return {
    ...base,
    validate: (config) => checkScriptConfig(config),
    create: (config, env, node) => {
      const script = RuleScript.fromConfig(config, { owner: scriptOwner(env, node) });
      return {
        async process(msg) {
          try {
            return await run(script, msg);
          } catch (err) {
            return failure(msg, err);
          }
        },
        destroy: () => script.destroy(),
        problem: () => script.problem(),
      };
    },
  };
}

import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';
import { checkScriptConfig, RuleScript } from '../script/rule-script.ts';

const DEFAULT_SCRIPT = 'return msg.temperature > 20;';

/** TbJsFilterNode: the script returns a boolean; the message goes to True or False. */
export const scriptFilterNode: NodeDefinition = {
  type: NODE_TYPES.scriptFilter,
  label: 'Script Filter',
  relations: ['True', 'False', 'Failure'],
  defaultConfiguration: { scriptLang: 'TBEL', jsScript: DEFAULT_SCRIPT, tbelScript: DEFAULT_SCRIPT },
  validate: (config) => checkScriptConfig(config),
  create: (config) => {
    const script = RuleScript.fromConfig(config);
    return {
      async process(msg) {
        try {
          return [{ relation: (await script.filter(msg)) ? 'True' : 'False', msg }];
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
    };
  },
};

import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';
import { checkScriptConfig, RuleScript } from '../script/rule-script.ts';

const DEFAULT_SCRIPT = 'return {msg: msg, metadata: metadata, msgType: msgType};';

/** TbTransformMsgNode: the script returns {msg, metadata, msgType} (or an array of them) for Success. */
export const scriptTransformNode: NodeDefinition = {
  type: NODE_TYPES.scriptTransform,
  label: 'Script Transformation',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { scriptLang: 'TBEL', jsScript: DEFAULT_SCRIPT, tbelScript: DEFAULT_SCRIPT },
  validate: (config) => checkScriptConfig(config),
  create: (config) => {
    const script = RuleScript.fromConfig(config);
    return {
      async process(msg) {
        try {
          const out = await script.update(msg);
          if (out.length === 0) return failure(msg, new Error('Message or messages list are empty!'));
          return out.map((m) => ({ relation: 'Success', msg: m }));
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
    };
  },
};

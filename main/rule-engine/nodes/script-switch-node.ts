import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, type NodeDefinition } from '../rule-node.ts';
import { checkScriptConfig, RuleScript } from '../script/rule-script.ts';

const defaultScript = (eq: string) =>
  "function nextRelation(metadata, msg) {\n    return ['one','nine'];\n}\n" +
  `if(msgType ${eq} 'POST_TELEMETRY_REQUEST') {\n    return ['two'];\n}\nreturn nextRelation(metadata, msg);`;

/** TbJsSwitchNode: the script returns relation names (custom relations); the message follows each. */
export const scriptSwitchNode: NodeDefinition = {
  type: NODE_TYPES.scriptSwitch,
  label: 'Script Switch',
  relations: ['Failure'],
  defaultConfiguration: {
    scriptLang: 'TBEL',
    jsScript: defaultScript('==='),
    tbelScript: defaultScript('=='),
  },
  validate: (config) => checkScriptConfig(config),
  create: (config) => {
    const script = RuleScript.fromConfig(config);
    return {
      async process(msg) {
        try {
          return (await script.switch(msg)).map((relation) => ({ relation, msg }));
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
    };
  },
};

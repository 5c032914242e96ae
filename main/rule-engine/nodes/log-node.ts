import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure, success, type NodeDefinition } from '../rule-node.ts';
import { checkScriptConfig, RuleScript, scriptLangOf, scriptOwner } from '../script/rule-script.ts';

/** ThingsBoard's default log script (TbLogNodeConfiguration), the same for JS and TBEL. */
const DEFAULT_SCRIPT =
  "return '\\nIncoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";

/** The default script (or none) logs without running a script, as TbLogNode.isStandard does. */
function isStandard(config: Record<string, unknown>): boolean {
  const script = scriptLangOf(config) === 'TBEL' ? config.tbelScript : config.jsScript;
  return script === undefined || script === DEFAULT_SCRIPT;
}

/** Writes the message to the platform log; a custom script builds the log line. */
export const logNode: NodeDefinition = {
  type: NODE_TYPES.log,
  label: 'Log',
  componentType: 'ACTION',
  description: 'Log incoming messages using JS script for transformation Message into String',
  relations: ['Success', 'Failure'],
  defaultConfiguration: { scriptLang: 'TBEL', jsScript: DEFAULT_SCRIPT, tbelScript: DEFAULT_SCRIPT },
  validate: (config) => (isStandard(config) ? null : checkScriptConfig(config)),
  create: (config, env, node) => {
    if (isStandard(config)) {
      return {
        process(msg) {
          env.log(
            `[rule engine] ${msg.type} from ${msg.originator.entityType} ${msg.originator.id}: ${JSON.stringify(msg.data)} ${JSON.stringify(msg.metadata)}`,
          );
          return success(msg);
        },
      };
    }
    const script = RuleScript.fromConfig(config, { owner: scriptOwner(env, node) });
    return {
      async process(msg) {
        try {
          env.log(`[rule engine] ${await script.toLogString(msg)}`);
          return success(msg);
        } catch (err) {
          return failure(msg, err);
        }
      },
      destroy: () => script.destroy(),
      problem: () => script.problem(),
    };
  },
};

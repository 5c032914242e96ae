import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { scriptNodeDefinition } from './script-node.ts';

const DEFAULT_SCRIPT = 'return msg.temperature > 20;';

/** TbJsFilterNode: the script returns a boolean; the message goes to True or False. */
export const scriptFilterNode = scriptNodeDefinition(
  {
    type: NODE_TYPES.scriptFilter,
    label: 'Script Filter',
    componentType: 'FILTER',
    description: 'Filter incoming messages using TBEL or JS script',
    relations: ['True', 'False', 'Failure'],
    defaultConfiguration: { scriptLang: 'TBEL', jsScript: DEFAULT_SCRIPT, tbelScript: DEFAULT_SCRIPT },
  },
  async (script, msg) => [{ relation: (await script.filter(msg)) ? 'True' : 'False', msg }],
);

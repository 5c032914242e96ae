import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { scriptNodeDefinition } from './script-node.ts';

const defaultScript = (eq: string) =>
  "function nextRelation(metadata, msg) {\n    return ['one','nine'];\n}\n" +
  `if(msgType ${eq} 'POST_TELEMETRY_REQUEST') {\n    return ['two'];\n}\nreturn nextRelation(metadata, msg);`;

/** TbJsSwitchNode: the script returns relation names (custom relations); the message follows each. */
export const scriptSwitchNode = scriptNodeDefinition(
  {
    type: NODE_TYPES.scriptSwitch,
    label: 'Script Switch',
    componentType: 'FILTER',
    description: 'Routes incoming message to one OR multiple output connections.',
    // the script names the relations: the editor lets a person type them
    customRelations: true,
    relations: ['Failure'],
    defaultConfiguration: {
      scriptLang: 'TBEL',
      jsScript: defaultScript('==='),
      tbelScript: defaultScript('=='),
    },
  },
  async (script, msg) => (await script.switch(msg)).map((relation) => ({ relation, msg })),
);

import { NODE_TYPES } from '../../../shared/rule-engine.ts';
import { failure } from '../rule-node.ts';
import { scriptNodeDefinition } from './script-node.ts';

const DEFAULT_SCRIPT = 'return {msg: msg, metadata: metadata, msgType: msgType};';

/** TbTransformMsgNode: the script returns {msg, metadata, msgType} (or an array of them) for Success. */
export const scriptTransformNode = scriptNodeDefinition(
  {
    type: NODE_TYPES.scriptTransform,
    label: 'Script Transformation',
    componentType: 'TRANSFORMATION',
    description: 'Change Message payload, Metadata or Message type using JavaScript',
    relations: ['Success', 'Failure'],
    defaultConfiguration: { scriptLang: 'TBEL', jsScript: DEFAULT_SCRIPT, tbelScript: DEFAULT_SCRIPT },
  },
  async (script, msg) => {
    const out = await script.update(msg);
    if (out.length === 0) return failure(msg, new Error('Message or messages list are empty!'));
    return out.map((m) => ({ relation: 'Success', msg: m }));
  },
);

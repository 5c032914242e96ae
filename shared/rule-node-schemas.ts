import { Type, type TSchema } from 'typebox';
import { NODE_TYPES } from './rule-engine.ts';
import { PushToEdgeConfiguration } from './schemas/edge.ts';

const Scope = Type.Union(
  [Type.Literal('CLIENT_SCOPE'), Type.Literal('SERVER_SCOPE'), Type.Literal('SHARED_SCOPE')],
  {
    title: 'Attribute scope',
  },
);

const ScriptLang = Type.Union([Type.Literal('TBEL'), Type.Literal('JS')], {
  title: 'Script language',
  description: 'JS when not set',
});
/** The script fields of script nodes; the editor shows the scripts with a "test script" panel. */
const scriptFields = {
  scriptLang: Type.Optional(ScriptLang),
  jsScript: Type.Optional(Type.String({ title: 'JavaScript' })),
  tbelScript: Type.Optional(Type.String({ title: 'TBEL script' })),
};
/** The originators a generator node may use (TbMsgGeneratorNode's supported entity types). */
export const GENERATOR_ORIGINATOR_TYPES = [
  'DEVICE',
  'ASSET',
  'ENTITY_VIEW',
  'TENANT',
  'CUSTOMER',
  'USER',
  'DASHBOARD',
  'EDGE',
  'RULE_NODE',
];

/**
 * The configuration schema of every node type Sandboard runs, for the rule chain editor's generated
 * forms (enums become dropdowns) and its inline validation. The server checks the same rules when a
 * chain is saved.
 */
export const RULE_NODE_CONFIGURATION_SCHEMAS: Record<string, TSchema> = {
  [NODE_TYPES.msgTypeSwitch]: Type.Object({ version: Type.Optional(Type.Integer({ title: 'Version' })) }),
  [NODE_TYPES.saveTimeseries]: Type.Object({
    defaultTTL: Type.Optional(Type.Integer({ minimum: 0, title: 'Default TTL (s)', description: '0: keep' })),
  }),
  [NODE_TYPES.saveAttributes]: Type.Object({
    scope: Scope,
    notifyDevice: Type.Optional(Type.Boolean({ title: 'Notify device' })),
  }),
  [NODE_TYPES.log]: Type.Object(scriptFields),
  [NODE_TYPES.scriptFilter]: Type.Object(scriptFields),
  [NODE_TYPES.scriptSwitch]: Type.Object(scriptFields),
  [NODE_TYPES.scriptTransform]: Type.Object(scriptFields),
  [NODE_TYPES.msgGenerator]: Type.Object({
    msgCount: Type.Optional(
      Type.Integer({ minimum: 0, title: 'Message count', description: '0: without end' }),
    ),
    periodInSeconds: Type.Integer({ minimum: 1, title: 'Period (s)' }),
    originatorType: Type.Optional(
      Type.Union(
        GENERATOR_ORIGINATOR_TYPES.map((t) => Type.Literal(t)),
        { title: 'Originator type' },
      ),
    ),
    originatorId: Type.Optional(Type.String({ title: 'Originator id' })),
    ...scriptFields,
  }),
  [NODE_TYPES.rpcCallRequest]: Type.Object({
    timeoutInSeconds: Type.Optional(Type.Integer({ minimum: 1, title: 'Timeout (s)' })),
  }),
  [NODE_TYPES.pushToEdge]: PushToEdgeConfiguration,
};

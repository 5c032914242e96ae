import { Type, type TSchema } from 'typebox';
import { NODE_TYPES } from './rule-engine.ts';
import { PushToEdgeConfiguration } from './schemas/edge.ts';

const Scope = Type.Union(
  [Type.Literal('CLIENT_SCOPE'), Type.Literal('SERVER_SCOPE'), Type.Literal('SHARED_SCOPE')],
  {
    title: 'Attribute scope',
  },
);

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
  [NODE_TYPES.log]: Type.Object({ scriptLang: Type.Optional(Type.String({ title: 'Script language' })) }),
  [NODE_TYPES.rpcCallRequest]: Type.Object({
    timeoutInSeconds: Type.Optional(Type.Integer({ minimum: 1, title: 'Timeout (s)' })),
  }),
  [NODE_TYPES.pushToEdge]: PushToEdgeConfiguration,
};

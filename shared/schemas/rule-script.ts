/** POST /api/ruleChain/testScript, as ThingsBoard's RuleChainController answers it. */
import { Type, type Static } from 'typebox';

export const SCRIPT_TYPES = ['update', 'generate', 'filter', 'switch', 'json', 'string'] as const;

export const TestScriptQuery = Type.Object({
  scriptLang: Type.Optional(Type.Unsafe<'JS' | 'TBEL'>({ type: 'string', enum: ['JS', 'TBEL'] })),
});
export type TestScriptQuery = Static<typeof TestScriptQuery>;

export const TestScriptRequest = Type.Object({
  script: Type.String({ maxLength: 50_000, description: 'The script body (jsScript or tbelScript)' }),
  scriptType: Type.String({
    description: `What the node does with the result: ${SCRIPT_TYPES.join(', ')}`,
  }),
  argNames: Type.Optional(
    Type.Array(Type.String({ maxLength: 64 }), {
      maxItems: 3,
      description: "The script's argument names; default msg, metadata, msgType",
    }),
  ),
  msg: Type.String({ maxLength: 100_000, description: 'The sample message data, as JSON text' }),
  metadata: Type.Optional(Type.Record(Type.String(), Type.String())),
  msgType: Type.Optional(Type.String({ maxLength: 255 })),
});
export type TestScriptRequest = Static<typeof TestScriptRequest>;

export const TestScriptResponse = Type.Object({
  output: Type.String({ description: 'The result as the node would use it ("" when the script failed)' }),
  error: Type.String({ description: 'Why the script failed ("" when it ran)' }),
});
export type TestScriptResponse = Static<typeof TestScriptResponse>;

import type { MsgType } from '../../../shared/rule-engine.ts';
import {
  SCRIPT_TYPES,
  type TestScriptRequest,
  type TestScriptResponse,
} from '../../../shared/schemas/rule-script.ts';
import type { TbMsg } from '../../platform/tb-msg.ts';
import { DEFAULT_ARG_NAMES, RuleScript } from './rule-script.ts';
import type { ScriptLang } from './script-program.ts';
import { testScriptSandbox } from './script-sandbox.ts';

/** A message as the test panel shows it: {msg, metadata, msgType} (msg left out when empty). */
function msgOut(m: TbMsg): Record<string, unknown> {
  const empty = m.data === undefined || m.data === null || m.data === '';
  return { ...(empty ? {} : { msg: m.data }), metadata: m.metadata, msgType: m.type };
}

/**
 * Runs a script once on a sample message the way the node would (RuleChainController.testScript):
 * `output` is the result as text, `error` the reason it failed; never throws. Tests run in a sandbox of their
 * own (testScriptSandbox), apart from the chains.
 */
export async function testScript(input: TestScriptRequest, lang: ScriptLang): Promise<TestScriptResponse> {
  let data: unknown;
  try {
    data = JSON.parse(input.msg);
  } catch (err) {
    return { output: '', error: `The message is not valid JSON: ${(err as Error).message}` };
  }
  if (!(SCRIPT_TYPES as readonly string[]).includes(input.scriptType))
    return { output: '', error: `Unsupported script type: ${input.scriptType}` };
  const argNames = input.argNames?.length === 3 ? input.argNames : DEFAULT_ARG_NAMES;
  const script = new RuleScript(lang, input.script, argNames, testScriptSandbox());
  const msg: TbMsg = {
    id: '00000000-0000-4000-8000-000000000000',
    ts: Date.now(),
    type: (input.msgType ?? 'POST_TELEMETRY_REQUEST') as MsgType,
    originator: { entityType: 'DEVICE', id: '00000000-0000-4000-8000-000000000000' },
    data,
    metadata: input.metadata ?? {},
  };
  try {
    let output: string;
    switch (input.scriptType) {
      case 'update': {
        const out = await script.update(msg);
        if (out.length === 0) throw new Error('Message or messages list are empty!');
        output = JSON.stringify(out.length === 1 ? msgOut(out[0]!) : out.map(msgOut));
        break;
      }
      case 'generate':
        output = JSON.stringify(msgOut(await script.generate(msg)));
        break;
      case 'filter':
        output = String(await script.filter(msg));
        break;
      case 'switch':
        output = JSON.stringify(await script.switch(msg));
        break;
      case 'json':
        output = JSON.stringify((await script.json(msg)) ?? null);
        break;
      default:
        output = await script.toLogString(msg);
    }
    return { output, error: '' };
  } catch (err) {
    return { output: '', error: (err as Error).message || String(err) };
  } finally {
    script.destroy();
  }
}

import { describe, expect, it } from 'vitest';
import type { MsgType } from '../../../../shared/rule-engine.ts';
import type { TbMsg } from '../../../../main/platform/tb-msg.ts';
import { generatorNode } from '../../../../main/rule-engine/nodes/generator-node.ts';
import { logNode } from '../../../../main/rule-engine/nodes/log-node.ts';
import { scriptFilterNode } from '../../../../main/rule-engine/nodes/script-filter-node.ts';
import { scriptSwitchNode } from '../../../../main/rule-engine/nodes/script-switch-node.ts';
import { scriptTransformNode } from '../../../../main/rule-engine/nodes/script-transform-node.ts';
import type { NodeDefinition, NodeOutput, RuleEnv } from '../../../../main/rule-engine/rule-node.ts';

function msg(data: unknown = { temperature: 25 }, type: MsgType = 'POST_TELEMETRY_REQUEST'): TbMsg {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    ts: 1_700_000_000_000,
    type,
    originator: { entityType: 'DEVICE', id: '00000000-0000-4000-8000-00000000000d' },
    data,
    metadata: { deviceName: 'Thermo 1', deviceType: 'default', ts: '1700000000000' },
  };
}

function env(lines: string[] = []): RuleEnv {
  return {
    services: { ctx: { tenantId: '00000000-0000-4000-8000-0000000000aa' } } as never,
    edgeQueue: null as never,
    log: (line) => lines.push(line),
  };
}

async function run(def: NodeDefinition, config: Record<string, unknown>, m = msg(), lines: string[] = []) {
  expect(def.validate(config)).toBeNull();
  const node = def.create(config, env(lines));
  try {
    return await node.process(m);
  } finally {
    node.destroy?.();
  }
}

const tbel = (script: string) => ({ scriptLang: 'TBEL', tbelScript: script });
const js = (script: string) => ({ scriptLang: 'JS', jsScript: script });
const relations = (out: NodeOutput[]) => out.map((o) => o.relation);
const errorOf = (out: NodeOutput[]) => {
  expect(relations(out)).toEqual(['Failure']);
  return out[0]!.msg.metadata.error;
};

describe('script nodes: ThingsBoard class names, defaults and relations', () => {
  it('TbJsFilterNode', () => {
    expect(scriptFilterNode.type).toBe('org.thingsboard.rule.engine.filter.TbJsFilterNode');
    expect(scriptFilterNode.relations).toEqual(['True', 'False', 'Failure']);
    expect(scriptFilterNode.defaultConfiguration).toEqual({
      scriptLang: 'TBEL',
      jsScript: 'return msg.temperature > 20;',
      tbelScript: 'return msg.temperature > 20;',
    });
  });

  it('TbJsSwitchNode', () => {
    expect(scriptSwitchNode.type).toBe('org.thingsboard.rule.engine.filter.TbJsSwitchNode');
    expect(scriptSwitchNode.relations).toEqual(['Failure']);
    expect(scriptSwitchNode.defaultConfiguration).toEqual({
      scriptLang: 'TBEL',
      jsScript:
        "function nextRelation(metadata, msg) {\n    return ['one','nine'];\n}\nif(msgType === 'POST_TELEMETRY_REQUEST') {\n    return ['two'];\n}\nreturn nextRelation(metadata, msg);",
      tbelScript:
        "function nextRelation(metadata, msg) {\n    return ['one','nine'];\n}\nif(msgType == 'POST_TELEMETRY_REQUEST') {\n    return ['two'];\n}\nreturn nextRelation(metadata, msg);",
    });
  });

  it('TbTransformMsgNode', () => {
    expect(scriptTransformNode.type).toBe('org.thingsboard.rule.engine.transform.TbTransformMsgNode');
    expect(scriptTransformNode.relations).toEqual(['Success', 'Failure']);
    const script = 'return {msg: msg, metadata: metadata, msgType: msgType};';
    expect(scriptTransformNode.defaultConfiguration).toEqual({
      scriptLang: 'TBEL',
      jsScript: script,
      tbelScript: script,
    });
  });

  it('TbMsgGeneratorNode', () => {
    expect(generatorNode.type).toBe('org.thingsboard.rule.engine.debug.TbMsgGeneratorNode');
    expect(generatorNode.relations).toEqual(['Success', 'Failure']);
    const script =
      'var msg = { temp: 42, humidity: 77 };\nvar metadata = { data: 40 };\nvar msgType = "POST_TELEMETRY_REQUEST";\n\nreturn { msg: msg, metadata: metadata, msgType: msgType };';
    expect(generatorNode.defaultConfiguration).toEqual({
      msgCount: 0,
      periodInSeconds: 1,
      originatorType: 'RULE_NODE',
      scriptLang: 'TBEL',
      jsScript: script,
      tbelScript: script,
    });
  });

  it('TbLogNode', () => {
    expect(logNode.type).toBe('org.thingsboard.rule.engine.action.TbLogNode');
    expect(logNode.relations).toEqual(['Success', 'Failure']);
    const script =
      "return '\\nIncoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";
    expect(logNode.defaultConfiguration).toEqual({
      scriptLang: 'TBEL',
      jsScript: script,
      tbelScript: script,
    });
  });

  it('every default configuration validates', () => {
    for (const def of [scriptFilterNode, scriptSwitchNode, scriptTransformNode, generatorNode, logNode])
      expect(def.validate(def.defaultConfiguration), def.label).toBeNull();
  });
});

describe('script filter', () => {
  it('sends to True or False with the default script, in TBEL and JS', async () => {
    const c = scriptFilterNode.defaultConfiguration;
    expect(relations(await run(scriptFilterNode, c, msg({ temperature: 25 })))).toEqual(['True']);
    expect(relations(await run(scriptFilterNode, c, msg({ temperature: 15 })))).toEqual(['False']);
    const jsConfig = { ...c, scriptLang: 'JS' };
    expect(relations(await run(scriptFilterNode, jsConfig, msg({ temperature: 25 })))).toEqual(['True']);
  });

  it('runs JavaScript when scriptLang is absent (configurations from before TBEL)', async () => {
    const out = await run(scriptFilterNode, { jsScript: 'return metadata.deviceName === "Thermo 1";' });
    expect(relations(out)).toEqual(['True']);
  });

  it('fails a message whose script does not return a boolean', async () => {
    expect(errorOf(await run(scriptFilterNode, js('return 42;')))).toBe('Wrong result type: NUMBER');
    expect(errorOf(await run(scriptFilterNode, tbel('return "yes";')))).toBe('Wrong result type: String');
  });
});

describe('script switch', () => {
  it('routes to every relation the script names (default script)', async () => {
    const c = scriptSwitchNode.defaultConfiguration;
    expect(relations(await run(scriptSwitchNode, c))).toEqual(['two']);
    expect(relations(await run(scriptSwitchNode, c, msg({}, 'POST_ATTRIBUTES_REQUEST')))).toEqual([
      'one',
      'nine',
    ]);
    expect(relations(await run(scriptSwitchNode, { ...c, scriptLang: 'JS' }))).toEqual(['two']);
  });

  it('accepts a single name and routes nowhere on an empty list', async () => {
    expect(relations(await run(scriptSwitchNode, tbel('return "hot";')))).toEqual(['hot']);
    expect(await run(scriptSwitchNode, tbel('return [];'))).toEqual([]);
  });

  it('fails on anything but relation names', async () => {
    expect(errorOf(await run(scriptSwitchNode, js('return ["a", 1];')))).toBe('Wrong result type: NUMBER');
    expect(errorOf(await run(scriptSwitchNode, tbel('return {"a": 1};')))).toBe(
      'Wrong result type: ExecutionHashMap',
    );
  });
});

describe('script transformation', () => {
  it('passes the message through with the default script', async () => {
    const out = await run(scriptTransformNode, scriptTransformNode.defaultConfiguration);
    expect(out).toEqual([{ relation: 'Success', msg: msg() }]);
  });

  it('changes data, metadata and type; what the script leaves out is kept', async () => {
    const out = await run(
      scriptTransformNode,
      tbel(
        'msg.fahrenheit = msg.temperature * 1.8 + 32;\nmetadata.unit = "F";\nreturn {msg: msg, metadata: metadata, msgType: "CUSTOM"};',
      ),
    );
    expect(out).toEqual([
      {
        relation: 'Success',
        msg: {
          ...msg(),
          type: 'CUSTOM',
          data: { temperature: 25, fahrenheit: 77 },
          metadata: { ...msg().metadata, unit: 'F' },
        },
      },
    ]);
    const onlyMsg = await run(scriptTransformNode, js('return {msg: {t: msg.temperature}};'));
    expect(onlyMsg[0]!.msg).toEqual({ ...msg(), data: { t: 25 } });
  });

  it('splits into several messages when the script returns an array', async () => {
    const out = await run(
      scriptTransformNode,
      tbel(
        'var out = [];\nforeach (k : msg.keySet()) {\n  out.add({msg: {key: k, value: msg[k]}});\n}\nreturn out;',
      ),
      msg({ a: 1, b: 2 }),
    );
    expect(out.map((o) => [o.relation, o.msg.data])).toEqual([
      ['Success', { key: 'a', value: 1 }],
      ['Success', { key: 'b', value: 2 }],
    ]);
  });

  it('keeps metadata values as strings', async () => {
    const out = await run(
      scriptTransformNode,
      js('return {metadata: {n: 40, ok: true, gone: null, o: {a: 1}}};'),
    );
    expect(out[0]!.msg.metadata).toEqual({ n: '40', ok: 'true', o: '{"a":1}' });
  });

  it('fails on an empty list or a wrong result', async () => {
    expect(errorOf(await run(scriptTransformNode, tbel('return [];')))).toBe(
      'Message or messages list are empty!',
    );
    expect(errorOf(await run(scriptTransformNode, js('return "x";')))).toBe('Wrong result type: STRING');
  });
});

describe('script failures go to Failure with the reason', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    [
      'a script that loops forever',
      js('while (true) {}'),
      /^Script execution exceeded the time limit of 500 ms$/,
    ],
    [
      'one that allocates without end',
      tbel('var a = [];\nwhile (true) {\n  a.add(new int[10000]);\n}'),
      /^Script exceeded the memory limit of 8 MiB$/,
    ],
    [
      'one that throws',
      tbel('var t = msg.temperature;\nif (t > 20) {\n  raiseError("too hot: " + t);\n}\nreturn true;'),
      /^too hot: 25 \(line 3\)$/,
    ],
    [
      'one with a syntax error (stored before it was checked)',
      js('return msg.temperature >;'),
      /^Failed to compile script: line 1: Unexpected token ';'/,
    ],
  ];
  for (const [title, config, error] of cases) {
    it(title, async () => {
      const node = scriptFilterNode.create(config, env());
      try {
        expect(errorOf(await node.process(msg()))).toMatch(error);
      } finally {
        node.destroy?.();
      }
    });
  }
});

describe('save-time checks name the field, the line and the construct', () => {
  it('refuses unsupported TBEL and JavaScript syntax errors', () => {
    expect(scriptFilterNode.validate(tbel('var x = 1;\nreturn x === 1;'))).toBe(
      "'tbelScript' line 2: '===' is JavaScript; TBEL compares with == (at '===')",
    );
    expect(scriptTransformNode.validate(js('var a = 1;\nreturn {msg: a;'))).toMatch(
      /^'jsScript' line 2: .* \(at 'return \{msg: a;'\)$/,
    );
    expect(scriptSwitchNode.validate({ scriptLang: 'TBEL', tbelScript: '' })).toBe(
      "'tbelScript' must be a non-empty script",
    );
    expect(scriptFilterNode.validate({ scriptLang: 'PYTHON', jsScript: 'x' })).toBe(
      "'scriptLang' must be 'JS' or 'TBEL'",
    );
    expect(logNode.validate(tbel('return nope(1);'))).toBe(
      "'tbelScript' line 1: unknown function 'nope' (at 'nope')",
    );
  });

  it('checks the generator with its own argument names and its schedule', () => {
    const base = generatorNode.defaultConfiguration;
    expect(
      generatorNode.validate({ ...base, tbelScript: 'return {msg: prevMsg, msgType: prevMsgType};' }),
    ).toBeNull();
    expect(generatorNode.validate({ ...base, tbelScript: 'return {msg: msg};' })).toBe(
      "'tbelScript' line 1: unknown variable 'msg' (at 'msg')",
    );
    expect(generatorNode.validate({ ...base, periodInSeconds: 0 })).toBe(
      "'periodInSeconds' must be an integer >= 1",
    );
    expect(generatorNode.validate({ ...base, msgCount: -1 })).toBe("'msgCount' must be an integer >= 0");
    expect(generatorNode.validate({ ...base, originatorType: 'DEVICE' })).toBe(
      "'originatorId' is required: Originator entity must be selected.",
    );
    expect(generatorNode.validate({ ...base, originatorType: 'QUEUE' })).toMatch(
      /^'originatorType' must be one of/,
    );
  });
});

describe('log node', () => {
  it('logs the message without a script when the script is the default one', async () => {
    const lines: string[] = [];
    const out = await run(logNode, logNode.defaultConfiguration, msg(), lines);
    expect(relations(out)).toEqual(['Success']);
    expect(lines).toEqual([
      `[rule engine] POST_TELEMETRY_REQUEST from DEVICE ${msg().originator.id}: {"temperature":25} ${JSON.stringify(msg().metadata)}`,
    ]);
  });

  it('logs the line a custom script builds; TBEL may return any value', async () => {
    const lines: string[] = [];
    await run(logNode, js("return 'temperature = ' + msg.temperature;"), msg(), lines);
    await run(logNode, tbel('return {"t": msg.temperature};'), msg(), lines);
    expect(lines).toEqual(['[rule engine] temperature = 25', '[rule engine] {"t":25}']);
  });

  it('fails when the script fails or (JS) returns no string', async () => {
    expect(errorOf(await run(logNode, js('return 1;')))).toBe('Wrong result type: NUMBER');
    expect(errorOf(await run(logNode, tbel('raiseError("no log");')))).toBe('no log (line 1)');
  });
});

describe('generator', () => {
  it('makes msgCount messages, one per period, each built on the previous one', async () => {
    const node = generatorNode.create(
      {
        ...generatorNode.defaultConfiguration,
        msgCount: 2,
        tbelScript:
          'var n = prevMsg.n == null ? 1 : prevMsg.n + 1;\nreturn {msg: {n: n}, metadata: {step: n}, msgType: "POST_TELEMETRY_REQUEST"};',
      },
      env(),
    );
    const emitted: NodeOutput[] = [];
    const started = Date.now();
    await new Promise<void>((resolve) => {
      node.start!((outputs) => {
        emitted.push(...outputs);
        if (emitted.length === 2) resolve();
      });
    });
    node.destroy?.();
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    expect(emitted.map((o) => [o.relation, o.msg.data, o.msg.metadata, o.msg.type])).toEqual([
      ['Success', { n: 1 }, { step: '1' }, 'POST_TELEMETRY_REQUEST'],
      ['Success', { n: 2 }, { step: '2' }, 'POST_TELEMETRY_REQUEST'],
    ]);
    expect(emitted[0]!.msg.originator.entityType).toBe('RULE_NODE');
    expect(emitted[1]!.msg.originator).toEqual(emitted[0]!.msg.originator);
    expect(await node.process(msg())).toEqual([]);
  });

  it('sends a failing script to Failure and goes on; a tenant originator is the tenant', async () => {
    const node = generatorNode.create(
      {
        ...generatorNode.defaultConfiguration,
        msgCount: 1,
        originatorType: 'TENANT',
        jsScript: 'return 5;',
        scriptLang: 'JS',
      },
      env(),
    );
    const out = await new Promise<NodeOutput[]>((resolve) => node.start!(resolve));
    node.destroy?.();
    expect(errorOf(out)).toBe('Wrong result type: NUMBER');
    expect(out[0]!.msg.originator).toEqual({
      entityType: 'TENANT',
      id: '00000000-0000-4000-8000-0000000000aa',
    });
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER, expectTbError, okJson, useSharedPlatform, type ApiPlatform } from './api-kit.ts';

interface Answer {
  output: string;
  error: string;
}

describe('POST /api/ruleChain/testScript', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  beforeAll(async () => {
    p = platform();
    token = await p.login();
  });

  const test = (body: Record<string, unknown>, lang?: 'JS' | 'TBEL') =>
    okJson<Answer>(
      p.http(`/api/ruleChain/testScript${lang ? `?scriptLang=${lang}` : ''}`, {
        method: 'POST',
        token,
        json: {
          argNames: ['msg', 'metadata', 'msgType'],
          msg: '{"temperature": 25, "humidity": 40}',
          metadata: { deviceName: 'Thermo 1', deviceType: 'default', ts: '1700000000000' },
          msgType: 'POST_TELEMETRY_REQUEST',
          ...body,
        },
      }),
    );

  it('answers each script type as the node would use the result', async () => {
    expect(await test({ script: 'return msg.temperature > 20;', scriptType: 'filter' }, 'TBEL')).toEqual({
      output: 'true',
      error: '',
    });
    expect(await test({ script: "return ['hot', 'log'];", scriptType: 'switch' }, 'TBEL')).toEqual({
      output: '["hot","log"]',
      error: '',
    });
    expect(
      await test(
        {
          script:
            'msg.f = msg.temperature * 1.8 + 32;\nreturn {msg: msg, metadata: {unit: "F"}, msgType: "CUSTOM"};',
          scriptType: 'update',
        },
        'TBEL',
      ),
    ).toEqual({
      output: '{"msg":{"temperature":25,"humidity":40,"f":77},"metadata":{"unit":"F"},"msgType":"CUSTOM"}',
      error: '',
    });
    expect(
      await test(
        { script: 'return [{msg: {a: 1}}, {msg: {b: 2}, msgType: "X"}];', scriptType: 'update' },
        'JS',
      ),
    ).toEqual({
      output:
        '[{"msg":{"a":1},"metadata":{"deviceName":"Thermo 1","deviceType":"default","ts":"1700000000000"},"msgType":"POST_TELEMETRY_REQUEST"},{"msg":{"b":2},"metadata":{"deviceName":"Thermo 1","deviceType":"default","ts":"1700000000000"},"msgType":"X"}]',
      error: '',
    });
    expect(await test({ script: "return 'name = ' + metadata.deviceName;", scriptType: 'string' })).toEqual({
      output: 'name = Thermo 1',
      error: '',
    });
    expect(await test({ script: 'return {t: msg.temperature};', scriptType: 'json' })).toEqual({
      output: '{"t":25}',
      error: '',
    });
    expect(
      await test(
        {
          script:
            'return {msg: {n: prevMsg.n + 1}, metadata: prevMetadata, msgType: "POST_TELEMETRY_REQUEST"};',
          scriptType: 'generate',
          argNames: ['prevMsg', 'prevMetadata', 'prevMsgType'],
          msg: '{"n": 1}',
          metadata: {},
        },
        'TBEL',
      ),
    ).toEqual({ output: '{"msg":{"n":2},"metadata":{},"msgType":"POST_TELEMETRY_REQUEST"}', error: '' });
  });

  it('runs JavaScript when scriptLang is not given', async () => {
    expect(
      await test({ script: 'return typeof msg.temperature === "number";', scriptType: 'filter' }),
    ).toEqual({
      output: 'true',
      error: '',
    });
  });

  it('reports why a script failed in error, with 200', async () => {
    expect(await test({ script: 'return 42;', scriptType: 'filter' })).toEqual({
      output: '',
      error: 'Wrong result type: NUMBER',
    });
    expect(await test({ script: 'var x = 1;\nreturn x === 1;', scriptType: 'filter' }, 'TBEL')).toEqual({
      output: '',
      error: "Failed to compile script: line 2: '===' is JavaScript; TBEL compares with == (at '===')",
    });
    expect(await test({ script: 'while (true) {}', scriptType: 'filter' })).toEqual({
      output: '',
      error: 'Script execution exceeded the time limit of 500 ms',
    });
    expect(await test({ script: 'return 1;', scriptType: 'filter', msg: '{not json' })).toMatchObject({
      output: '',
      error: expect.stringMatching(/^The message is not valid JSON/),
    });
    expect(await test({ script: 'return 1;', scriptType: 'reduce' })).toEqual({
      output: '',
      error: 'Unsupported script type: reduce',
    });
  });

  it('refuses a malformed request with 400 and anyone but a tenant administrator with 403', async () => {
    const res = await p.http('/api/ruleChain/testScript?scriptLang=PYTHON', {
      method: 'POST',
      token,
      json: { script: 'return 1;', scriptType: 'filter', msg: '{}' },
    });
    expect(res.status).toBe(400);
    const noScript = await p.http('/api/ruleChain/testScript', {
      method: 'POST',
      token,
      json: { scriptType: 'filter', msg: '{}' },
    });
    expect(noScript.status).toBe(400);
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(
      await p.http('/api/ruleChain/testScript', {
        method: 'POST',
        token: customer,
        json: { script: 'return 1;', scriptType: 'filter', msg: '{}' },
      }),
      403,
      20,
    );
  });

  it('says TBEL is enabled', async () => {
    expect(await okJson(p.http('/api/ruleChain/tbelEnabled', { token }))).toBe(true);
  });
});

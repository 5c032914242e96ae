import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll, connect, publish, publishOk, timeseries } from '../transport/mqtt/mqtt-kit.ts';
import {
  chainApi,
  chainFile,
  failuresRecorded,
  fileNode,
  nodeFailures,
  TB,
  type MetadataJson,
} from './chain-kit.ts';

const TRANSFORM = 'org.thingsboard.rule.engine.transform.TbTransformMsgNode';
const RESULT = 'return {msg: {breaker: msg.t}, metadata: metadata, msgType: msgType};';

interface NodeStatus {
  id: string;
  running: boolean;
  problem: string | null;
}

/**
 * A device whose profile sends it to a chain with a hostile script, beside a device on the root chain: what
 * the script does fails (or not) its own node, never the process, and never the other device's PUBACK.
 */
describe('a hostile script in one chain, a healthy device on another', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let md: MetadataJson;
  let hostile: MqttClient;
  let healthy: MqttClient;
  let hostileId: string;
  let healthyId: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    const api = chainApi(p, token);
    const chain = await api.importFile(
      chainFile(
        'Hostile',
        [
          failuresRecorded(fileNode(TRANSFORM, 'Hostile script', { scriptLang: 'JS', jsScript: RESULT })),
          fileNode(TB.saveTs, 'Save', { defaultTTL: 0 }),
        ],
        [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
      ),
    );
    md = chain.metadata;
    const profile = await okJson<{ id: { id: string } }>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: {
          name: 'Hostile',
          defaultRuleChainId: { entityType: 'RULE_CHAIN', id: chain.ruleChain.id.id },
        },
      }),
    );
    const h = await createDevice(
      p,
      token,
      { name: 'hostile-device', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id } },
      'tok-hostile-device',
    );
    const g = await createDevice(p, token, { name: 'healthy-device' }, 'tok-healthy-device');
    hostileId = h.id.id;
    healthyId = g.id.id;
    hostile = await connect(p.urls.mqtt, 'tok-hostile-device', 5);
    healthy = await connect(p.urls.mqtt, 'tok-healthy-device', 5);
  });
  afterAll(() => closeAll());

  /** Saves the hostile node's script (a fresh script: nothing carried over from the last one). */
  async function useScript(script: string, lang: 'JS' | 'TBEL' = 'JS') {
    const nodes = md.nodes.map((n, i) =>
      i === 0 ? { ...n, configuration: { scriptLang: lang, jsScript: script, tbelScript: script } } : n,
    );
    md = await chainApi(p, token).saveMetadata({ ...md, nodes });
  }

  const nodeId = () => md.nodes[0]!.id.id;

  /** Publishes from both devices; resolves with the order their PUBACKs came in. */
  async function both(t: number): Promise<string[]> {
    const order: string[] = [];
    const h = publish(hostile, 'v1/devices/me/telemetry', { t }).then((o) => {
      order.push('hostile');
      return o;
    });
    await publishOk(healthy, 'v1/devices/me/telemetry', { healthy: t });
    order.push('healthy');
    // a Failure of a script node is not the device's: its publish is acknowledged all the same
    expect(await h).toEqual({ code: 0 });
    expect((await timeseries({ p, token }, healthyId)).healthy![0]!.value).toBe(t);
    return order;
  }

  const harmless: [string, string, 'JS' | 'TBEL'][] = [
    [
      'replaces Array.prototype.join',
      `Array.prototype.join = function () { return '}{'; };\n${RESULT}`,
      'JS',
    ],
    ['replaces JSON.stringify', `JSON.stringify = function () { return ']'; };\n${RESULT}`, 'JS'],
    ['replaces JSON.parse', `JSON.parse = function () { return null; };\n${RESULT}`, 'JS'],
    [
      'closes the wrapper early',
      `${RESULT}\n}\nJSON.stringify = null;\nArray.prototype.join = null;\nfunction __after() {`,
      'JS',
    ],
    ['replaces join through __proto__ (TBEL)', `var l = [1];\nl.__proto__.join = null;\n${RESULT}`, 'TBEL'],
  ];
  let t = 0;
  for (const [name, script, lang] of harmless) {
    it(`${name}: its result is stored as it returned it, and the healthy device is acknowledged`, async () => {
      await useScript(script, lang);
      await both(++t);
      expect((await timeseries({ p, token }, hostileId)).breaker![0]!.value).toBe(t);
    });
  }

  const failing: [string, string, RegExp][] = [
    [
      'a getter that throws',
      "var r = {msg: {}}; Object.defineProperty(r.msg, 'x', { enumerable: true, get: function () { throw new Error('boom'); } }); return r;",
      /^boom \(line 1\)$/,
    ],
    ['a cyclic result', 'var r = {msg: {}}; r.msg.self = r; return r;', /^Script result is cyclic/],
    [
      'a result 10,000 levels deep',
      'var o = {}; for (var i = 0; i < 10000; i++) o = {o: o}; return {msg: o};',
      /^Script result is nested deeper than 64 levels$/,
    ],
    [
      'a huge string',
      "return {msg: {s: 'x'.repeat(5000000)}};",
      /^Script invocation result exceeds maximum allowed size of 300000 symbols$/,
    ],
  ];
  for (const [name, script, message] of failing) {
    it(`${name}: its node fails with a message, and the healthy device is acknowledged`, async () => {
      await useScript(script);
      await both(++t);
      expect((await nodeFailures(p, token, nodeId(), hostileId))[0]).toMatch(message);
    });
  }

  it('a looping script: the healthy device is acknowledged first; after 3 in a row the node is suspended, with the reason on the node, until saved', async () => {
    await useScript('while (true) {}');
    for (let i = 0; i < 3; i++) expect(await both(++t)).toEqual(['healthy', 'hostile']);
    const reason =
      /^Script suspended after 3 failures in a row \(last: Script execution exceeded the time limit of 500 ms.*\); edit the node to run it again$/;
    const status = async () =>
      (
        await okJson<NodeStatus[]>(
          p.http(`/api/sandboard/ruleChain/${md.ruleChainId.id}/nodeStatus`, { token }),
        )
      ).find((n) => n.id === nodeId())!;
    expect(await status()).toMatchObject({ running: false, problem: expect.stringMatching(reason) });
    // suspended: fails at once, without running
    await both(++t);
    expect((await nodeFailures(p, token, nodeId(), hostileId))[0]).toMatch(reason);
    await useScript(RESULT);
    expect(await status()).toMatchObject({ running: true, problem: null });
    await both(++t);
    expect((await timeseries({ p, token }, hostileId)).breaker![0]!.value).toBe(t);
  });

  it('script tests that loop run apart: devices on scripted chains are acknowledged meanwhile', async () => {
    await useScript(RESULT);
    const order: string[] = [];
    const tests = Array.from({ length: 20 }, () =>
      okJson<{ output: string; error: string }>(
        p.http('/api/ruleChain/testScript?scriptLang=JS', {
          method: 'POST',
          token,
          json: {
            script: 'while (true) {}',
            scriptType: 'update',
            argNames: ['msg', 'metadata', 'msgType'],
            msg: '{}',
            metadata: {},
            msgType: 'POST_TELEMETRY_REQUEST',
          },
        }),
      ).then((r) => {
        order.push('test');
        return r;
      }),
    );
    await publishOk(hostile, 'v1/devices/me/telemetry', { t: ++t });
    order.push('device');
    const results = await Promise.all(tests);
    expect(order.indexOf('device')).toBeLessThan(2);
    // the tests' own pool is short: beyond its queue they are refused at once, with a reason
    for (const r of results) expect(r.error).toMatch(/time limit of 500 ms|The script sandbox is overloaded/);
  }, 60_000);
});

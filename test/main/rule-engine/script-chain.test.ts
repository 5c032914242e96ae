import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectTbError, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { nodeFailures, nodeIdByName, type MetadataJson } from './chain-kit.ts';
import {
  closeAll,
  connect,
  newDevice,
  publish,
  publishOk,
  timeseries,
  type Api,
} from '../transport/mqtt/mqtt-kit.ts';

interface Metadata {
  ruleChainId: { entityType: 'RULE_CHAIN'; id: string };
  version?: number;
  firstNodeIndex: number | null;
  nodes: {
    type: string;
    name: string;
    configuration: Record<string, unknown>;
    debugMode?: boolean;
    debugSettings?: { failuresEnabled: boolean; allEnabled: boolean; allEnabledUntil: number };
  }[];
  connections: { fromIndex: number; toIndex: number; type: string }[];
}

const FILTER = `if (msg.runaway != null) {
  while (true) {}
}
if (msg.alloc != null) {
  var a = [];
  while (true) {
    a.add(new int[10000]);
  }
}
if (msg.fail != null) {
  raiseError("sensor " + metadata.deviceName + " reported a fault");
}
return msg.temperature != null;`;
const TRANSFORM =
  'msg.fahrenheit = msg.temperature * 1.8 + 32;\nreturn {msg: msg, metadata: metadata, msgType: msgType};';

/** Root chain: message type switch -> script filter -> script transformation -> save timeseries. */
function scriptChain(ruleChainId: Metadata['ruleChainId'], filter = FILTER): Metadata {
  return {
    ruleChainId,
    firstNodeIndex: 0,
    nodes: [
      {
        type: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
        name: 'Switch',
        configuration: { version: 0 },
      },
      {
        type: 'org.thingsboard.rule.engine.filter.TbJsFilterNode',
        name: 'Has temperature',
        configuration: { scriptLang: 'TBEL', tbelScript: filter },
        debugSettings: { failuresEnabled: true, allEnabled: false, allEnabledUntil: 0 },
      },
      {
        type: 'org.thingsboard.rule.engine.transform.TbTransformMsgNode',
        name: 'Add fahrenheit',
        configuration: { scriptLang: 'TBEL', tbelScript: TRANSFORM },
      },
      {
        type: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
        name: 'Save Timeseries',
        configuration: { defaultTTL: 0 },
      },
    ],
    connections: [
      { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
      { fromIndex: 1, toIndex: 2, type: 'True' },
      { fromIndex: 2, toIndex: 3, type: 'Success' },
    ],
  };
}

describe('script nodes in the root chain, behind real MQTT clients', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let original: Metadata;
  let counter = 0;
  const api = (): Api => ({ p, token });
  const save = (metadata: unknown) =>
    p.http('/api/ruleChain/metadata', { method: 'POST', token, json: metadata });
  /** Saves the script chain as the root; resolves with the script filter's node id. */
  const saveScriptChain = async () =>
    nodeIdByName(await okJson<MetadataJson>(save(scriptChain(original.ruleChainId))), 'Has temperature');

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    const page = await okJson<{ data: { id: { id: string }; root: boolean }[] }>(
      p.http('/api/ruleChains?pageSize=10&page=0', { token }),
    );
    const rootId = page.data.find((c) => c.root)!.id.id;
    original = await okJson<Metadata>(p.http(`/api/ruleChain/${rootId}/metadata`, { token }));
  });

  afterEach(async () => {
    await closeAll();
    await okJson(save({ ...original, version: undefined }));
  });

  async function device(name: string) {
    const d = await newDevice(api(), `${name}-${++counter}`);
    return { ...d, client: await connect(p.urls.mqtt, d.accessToken, 5) };
  }

  it('filters and transforms telemetry before it is stored', async () => {
    await okJson(save(scriptChain(original.ruleChainId)));
    const d = await device('script-thermo');
    await publishOk(d.client, 'v1/devices/me/telemetry', { temperature: 25 });
    await publishOk(d.client, 'v1/devices/me/telemetry', { humidity: 40 });
    const stored = await timeseries(api(), d.id.id);
    expect(stored.temperature![0]!.value).toBe(25);
    expect(stored.fahrenheit![0]!.value).toBe(77);
    expect(stored.humidity).toBeUndefined();
  });

  it('keeps acknowledging telemetry while a runaway script runs, and fails the runaway message with the reason', async () => {
    const filterId = await saveScriptChain();
    const healthy = await device('script-healthy');
    const runaway = await device('script-runaway');
    await publishOk(healthy.client, 'v1/devices/me/telemetry', { temperature: 1 });

    let runawaySettled = false;
    const started = Date.now();
    const runawayOutcome = publish(runaway.client, 'v1/devices/me/telemetry', { runaway: true }).finally(
      () => {
        runawaySettled = true;
      },
    );
    let ackedWhileRunning = 0;
    let last = 1;
    for (let i = 0; i < 500 && !runawaySettled; i++) {
      await publishOk(healthy.client, 'v1/devices/me/telemetry', { temperature: 100 + i });
      last = 100 + i;
      if (!runawaySettled) ackedWhileRunning++;
    }
    const outcome = await runawayOutcome;
    expect(Date.now() - started).toBeLessThan(5_000);
    // acknowledged, as in ThingsBoard (nothing of it was to be stored); the node's Failure says why
    expect(outcome).toEqual({ code: 0 });
    expect(await nodeFailures(p, token, filterId, runaway.id.id)).toEqual([
      expect.stringMatching(/Script execution exceeded the time limit of 500 ms/),
    ]);
    expect(ackedWhileRunning).toBeGreaterThanOrEqual(3);
    // every acknowledged value went through the chain and is stored
    const stored = await timeseries(api(), healthy.id.id);
    expect(stored.temperature![0]!.value).toBe(last);
    expect(stored.fahrenheit![0]!.value).toBeCloseTo(last * 1.8 + 32);
    // and the platform goes on: the runaway device itself is served again
    await publishOk(runaway.client, 'v1/devices/me/telemetry', { temperature: 5 });
  });

  it('fails a script that allocates without end and one that throws, with the reason, and goes on', async () => {
    const filterId = await saveScriptChain();
    const d = await device('script-faulty');
    await publishOk(d.client, 'v1/devices/me/telemetry', { alloc: true });
    await publishOk(d.client, 'v1/devices/me/telemetry', { fail: true });
    const failures = await nodeFailures(p, token, filterId, d.id.id);
    expect(failures).toHaveLength(2);
    expect(failures).toEqual(
      expect.arrayContaining([
        // QuickJS checks its limits rarely in such a loop: the worker's memory cap or the watchdog ends it
        expect.stringMatching(
          /Script exceeded the memory limit of 8 MiB|Script execution exceeded the time limit of 500 ms/,
        ),
        expect.stringMatching(/sensor script-faulty-\d+ reported a fault \(line 11\)/),
      ]),
    );
    await publishOk(d.client, 'v1/devices/me/telemetry', { temperature: 30 });
    expect((await timeseries(api(), d.id.id)).fahrenheit![0]!.value).toBe(86);
  });

  it('refuses to save a chain whose script uses what TBEL does not support, naming node, line and construct', async () => {
    const bad = scriptChain(original.ruleChainId, 'var t = msg.temperature;\nreturn t === 20;');
    await expectTbError(
      await save(bad),
      400,
      30,
      /^nodes\[1\]\.configuration \(Has temperature\): 'tbelScript' line 2: '===' is JavaScript; TBEL compares with == \(at '==='\)$/,
    );
    const syntax = scriptChain(original.ruleChainId);
    syntax.nodes[2]!.configuration = { scriptLang: 'JS', jsScript: 'return {msg: msg,,};' };
    await expectTbError(
      await save(syntax),
      400,
      30,
      /^nodes\[2\]\.configuration \(Add fahrenheit\): 'jsScript' line 1: /,
    );
  });
});

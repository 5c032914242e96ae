import { afterEach, describe, expect, it } from 'vitest';
import { migrations } from '../../../main/platform/migrations.ts';
import { DurableDb } from '../../../main/store/durable-db.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';
import { okJson, withLoginPair } from '../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk, timeseries } from '../transport/mqtt/mqtt-kit.ts';
import { TB, type ChainJson, type MetadataJson } from './chain-kit.ts';

const LOG_SCRIPT =
  "return '\\nIncoming message:\\n' + JSON.stringify(msg) + '\\nIncoming metadata:\\n' + JSON.stringify(metadata);";

describe('default chains', () => {
  afterEach(() => closeAll());

  it("a new install gets ThingsBoard 4.2's root rule chain (device profile node first) and edge template root", async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const core = await okJson<{ data: ChainJson[] }>(p.http('/api/ruleChains?pageSize=10&page=0', { token }));
    expect(core.data.map((c) => [c.name, c.root])).toEqual([['Root Rule Chain', true]]);
    const md = await okJson<MetadataJson>(
      p.http(`/api/ruleChain/${core.data[0]!.id.id}/metadata`, { token }),
    );
    const shape = md.nodes.map((n) => [n.type, n.name, n.configurationVersion ?? 0, n.configuration]);
    expect(shape).toEqual([
      [
        TB.saveTs,
        'Save Timeseries',
        1,
        { defaultTTL: 0, useServerTs: false, processingSettings: { type: 'ON_EVERY_MESSAGE' } },
      ],
      [
        TB.saveAttrs,
        'Save Client Attributes',
        3,
        {
          processingSettings: { type: 'ON_EVERY_MESSAGE' },
          scope: 'CLIENT_SCOPE',
          notifyDevice: false,
          sendAttributesUpdatedNotification: false,
          updateAttributesOnlyOnValueChange: true,
        },
      ],
      [TB.switch, 'Message Type Switch', 0, { version: 0 }],
      [
        TB.log,
        'Log RPC from Device',
        0,
        { scriptLang: 'TBEL', jsScript: LOG_SCRIPT, tbelScript: LOG_SCRIPT },
      ],
      [TB.log, 'Log Other', 0, { scriptLang: 'TBEL', jsScript: LOG_SCRIPT, tbelScript: LOG_SCRIPT }],
      [TB.rpcRequest, 'RPC Call Request', 0, { timeoutInSeconds: 60 }],
      [
        TB.deviceProfile,
        'Device Profile Node',
        1,
        { persistAlarmRulesState: false, fetchAlarmRulesStateOnStart: false },
      ],
    ]);
    expect(md.firstNodeIndex).toBe(6);
    expect(core.data[0]!.firstRuleNodeId!.id).toBe(md.nodes[6]!.id.id);
    expect([...md.connections].sort((a, b) => a.toIndex - b.toIndex)).toEqual([
      { fromIndex: 2, toIndex: 0, type: 'Post telemetry' },
      { fromIndex: 2, toIndex: 1, type: 'Post attributes' },
      { fromIndex: 6, toIndex: 2, type: 'Success' },
      { fromIndex: 2, toIndex: 3, type: 'RPC Request from Device' },
      { fromIndex: 2, toIndex: 4, type: 'Other' },
      { fromIndex: 2, toIndex: 5, type: 'RPC Request to Device' },
    ]);

    const edge = await okJson<{ data: ChainJson[] }>(
      p.http('/api/ruleChains?pageSize=10&page=0&type=EDGE', { token }),
    );
    expect(edge.data.map((c) => [c.name, c.root, c.type])).toEqual([['Edge Root Rule Chain', true, 'EDGE']]);
    const edgeMd = await okJson<MetadataJson>(
      p.http(`/api/ruleChain/${edge.data[0]!.id.id}/metadata`, { token }),
    );
    expect(
      edgeMd.nodes.filter((n) => n.type === 'org.thingsboard.rule.engine.edge.TbMsgPushToCloudNode'),
    ).toHaveLength(2);

    // It runs: telemetry over MQTT is stored.
    const device = await newDevice({ p, token }, 'new-install');
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/telemetry', { t: 1 });
    expect((await timeseries({ p, token }, device.id.id)).t![0]!.value).toBe(1);
  });

  it('an existing install (data directory of an older version) keeps its own root chain and runs it', async () => {
    const dataDir = tempDir();
    // The store as the version before this one left it: migrations 1-6, its root chain without node ids.
    const old = await DurableDb.open({ dir: dataDir, migrations: migrations.filter((m) => m.version <= 6) });
    const oldChain = {
      firstNodeIndex: 0,
      nodes: [
        {
          type: TB.switch,
          name: 'Message Type Switch',
          debugMode: false,
          configuration: { version: 0 },
          additionalInfo: { layoutX: 350, layoutY: 200 },
        },
        { type: TB.saveTs, name: 'My Save Timeseries', debugMode: true, configuration: { defaultTTL: 0 } },
        {
          type: TB.saveAttrs,
          name: 'Save Client Attributes',
          configuration: { scope: 'CLIENT_SCOPE', notifyDevice: false },
        },
      ],
      connections: [
        { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
        { fromIndex: 0, toIndex: 2, type: 'Post attributes' },
      ],
      ruleChainConnections: null,
      version: 4,
    };
    await old.write((w) =>
      w.run(
        `INSERT INTO rule_chains (id, created_time, name, type, root, debug_mode, configuration, additional_info, metadata)
         VALUES ('11111111-2222-4333-8444-555555555555', 1, 'Our Root', 'CORE', 1, 0, NULL, '{}', ?)`,
        [JSON.stringify(oldChain)],
      ),
    );
    await old.close();

    const p = withLoginPair(await startTestPlatform({ dataDir }));
    const token = await p.login();
    const core = await okJson<{ data: ChainJson[] }>(p.http('/api/ruleChains?pageSize=10&page=0', { token }));
    expect(core.data.map((c) => [c.id.id, c.name, c.root])).toEqual([
      ['11111111-2222-4333-8444-555555555555', 'Our Root', true],
    ]);
    const edge = await okJson<{ data: ChainJson[] }>(
      p.http('/api/ruleChains?pageSize=10&page=0&type=EDGE', { token }),
    );
    expect(edge.data).toEqual([]);
    const md = await okJson<MetadataJson>(
      p.http('/api/ruleChain/11111111-2222-4333-8444-555555555555/metadata', { token }),
    );
    expect(md.nodes.map((n) => [n.name, n.configuration])).toEqual(
      oldChain.nodes.map((n) => [n.name, n.configuration]),
    );
    expect(md.nodes.every((n) => typeof n.id.id === 'string' && n.id.id.length === 36)).toBe(true);
    expect(md.version).toBe(4);
    // The old debug flag keeps failures recorded.
    expect(md.nodes[1]!.debugSettings).toMatchObject({ failuresEnabled: true });
    // This version's migration ran.
    expect(
      p.db.get(
        "SELECT COUNT(*) AS n FROM pragma_table_info('device_profiles') WHERE name = 'default_queue_name'",
      ),
    ).toEqual({ n: 1 });

    const device = await newDevice({ p, token }, 'old-install');
    const client = await connect(p.urls.mqtt, device.accessToken, 4);
    await publishOk(client, 'v1/devices/me/telemetry', { kept: 2 });
    expect((await timeseries({ p, token }, device.id.id)).kept![0]!.value).toBe(2);
  });
});

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createDevice, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk, timeseries, type Api } from '../transport/mqtt/mqtt-kit.ts';
import {
  chainApi,
  chainFile,
  failuresRecorded,
  fileNode,
  nodeFailures,
  nodeIdByName,
  TB,
  type ChainJson,
} from './chain-kit.ts';

const CLASSIFIER = 'aaaaaaaa-0000-4000-8000-000000000001';
const ROOT = 'aaaaaaaa-0000-4000-8000-000000000002';

/**
 * Two chains exported from a ThingsBoard tenant (RuleChainData, as GET /api/ruleChains/export writes it):
 * the root sends telemetry through a rule chain node to a classifier chain, whose output nodes "Hot" and
 * "Cold" come back as the rule chain node's relations.
 */
function exportedTenant() {
  const chain = (id: string, name: string) => ({
    id: { entityType: 'RULE_CHAIN', id },
    name,
    type: 'CORE',
    root: false,
    debugMode: false,
    firstRuleNodeId: null,
    configuration: null,
    additionalInfo: null,
  });
  return {
    ruleChains: [chain(CLASSIFIER, 'Classifier'), chain(ROOT, 'Nested root')],
    metadata: [
      {
        ruleChainId: { entityType: 'RULE_CHAIN', id: CLASSIFIER },
        firstNodeIndex: 0,
        nodes: [
          fileNode(TB.checkFields, 'Has alarm flag', {
            messageNames: ['alarm'],
            metadataNames: [],
            checkAllKeys: true,
          }),
          fileNode(TB.output, 'Hot', { version: 0 }),
          fileNode(TB.output, 'Cold', { version: 0 }),
        ],
        connections: [
          { fromIndex: 0, toIndex: 1, type: 'True' },
          { fromIndex: 0, toIndex: 2, type: 'False' },
        ],
        ruleChainConnections: null,
      },
      {
        ruleChainId: { entityType: 'RULE_CHAIN', id: ROOT },
        firstNodeIndex: 0,
        nodes: [
          fileNode(TB.switch, 'Switch', { version: 0 }),
          fileNode(TB.input, 'Classify', { ruleChainId: CLASSIFIER, forwardMsgToDefaultRuleChain: false }),
          {
            ...fileNode(TB.saveTs, 'Save hot', {
              defaultTTL: 0,
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
            }),
            configurationVersion: 1,
          },
          fileNode(TB.renameKeys, 'Mark cold', {
            renameIn: 'DATA',
            renameKeysMapping: { temperature: 'coldTemperature' },
          }),
          {
            ...fileNode(TB.saveTs, 'Save cold', {
              defaultTTL: 0,
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
            }),
            configurationVersion: 1,
          },
        ],
        connections: [
          { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
          { fromIndex: 1, toIndex: 2, type: 'Hot' },
          { fromIndex: 1, toIndex: 3, type: 'Cold' },
          { fromIndex: 3, toIndex: 4, type: 'Success' },
        ],
        ruleChainConnections: null,
      },
    ],
  };
}

describe('nested chains and device profile chains', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let api: ReturnType<typeof chainApi>;
  let rootId: string;
  let imported: Record<string, string>;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    api = chainApi(p, token);
    rootId = await api.rootId();
    const results = await okJson<{ ruleChainId: { id: string }; ruleChainName: string }[]>(
      p.http('/api/ruleChains/import', { method: 'POST', token, json: exportedTenant() }),
    );
    imported = Object.fromEntries(results.map((r) => [r.ruleChainName, r.ruleChainId.id]));
  });
  afterEach(async () => {
    await closeAll();
    if ((await api.rootId()) !== rootId) await api.setRoot(rootId);
  });
  const ctx = (): Api => ({ p, token });

  it('runs a nested chain and comes back on the output node named as the relation', async () => {
    await api.setRoot(imported['Nested root']!);
    const device = await newDevice(ctx(), 'nested-1');
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/telemetry', {
      ts: 1_000,
      values: { temperature: 30, alarm: true },
    });
    await publishOk(client, 'v1/devices/me/telemetry', { ts: 2_000, values: { temperature: 5 } });
    const ts = await timeseries(ctx(), device.id.id);
    expect(ts.temperature!.map((p) => p.value)).toEqual([30]);
    expect(ts.coldTemperature!.map((p) => p.value)).toEqual([5]);
  });

  it("a device profile's default rule chain runs its devices' messages instead of the root", async () => {
    const profileChain = await api.importFile(
      chainFile(
        'Profile chain',
        [
          fileNode(TB.renameKeys, 'Prefix', {
            renameIn: 'DATA',
            renameKeysMapping: { temperature: 'profileTemperature' },
          }),
          {
            ...fileNode(TB.saveTs, 'Save', {
              defaultTTL: 0,
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
            }),
            configurationVersion: 1,
          },
        ],
        [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
      ),
    );
    const profile = await okJson<{ id: { id: string }; defaultRuleChainId: { id: string } | null }>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: {
          name: 'With own chain',
          defaultRuleChainId: { entityType: 'RULE_CHAIN', id: profileChain.ruleChain.id.id },
        },
      }),
    );
    expect(profile.defaultRuleChainId?.id).toBe(profileChain.ruleChain.id.id);
    // Saved again by a client that does not know the field: the chain stays.
    const renamed = await okJson<{ defaultRuleChainId: { id: string } | null }>(
      p.http('/api/deviceProfile', {
        method: 'POST',
        token,
        json: { id: profile.id, name: 'With own chain' },
      }),
    );
    expect(renamed.defaultRuleChainId?.id).toBe(profileChain.ruleChain.id.id);
    const own = {
      ...(await createDevice(
        p,
        token,
        { name: 'profile-device', deviceProfileId: { entityType: 'DEVICE_PROFILE', id: profile.id.id } },
        'tok-profile-device',
      )),
      accessToken: 'tok-profile-device',
    };
    const plain = await newDevice(ctx(), 'root-device');
    for (const d of [own, plain]) {
      const client = await connect(p.urls.mqtt, d.accessToken, 5);
      await publishOk(client, 'v1/devices/me/telemetry', { temperature: 21 });
    }
    expect(Object.keys(await timeseries(ctx(), own.id.id))).toEqual(['profileTemperature']);
    expect(Object.keys(await timeseries(ctx(), plain.id.id))).toEqual(['temperature']);

    // The chain a profile names cannot be deleted; a profile cannot name a chain that does not exist.
    const del = await p.http(`/api/ruleChain/${profileChain.ruleChain.id.id}`, { method: 'DELETE', token });
    expect(del.status).toBe(400);
    const bad = await p.http('/api/deviceProfile', {
      method: 'POST',
      token,
      json: { name: 'Bad chain', defaultRuleChainId: { id: '00000000-0000-4000-8000-000000000009' } },
    });
    expect(bad.status).toBe(400);
  });

  it('chains that call each other in a circle stop at a depth limit and fail the message, naming it', async () => {
    const a = await okJson<ChainJson>(
      p.http('/api/ruleChain', { method: 'POST', token, json: { name: 'Loop A' } }),
    );
    const b = await okJson<ChainJson>(
      p.http('/api/ruleChain', { method: 'POST', token, json: { name: 'Loop B' } }),
    );
    const calls = (target: string) => ({
      firstNodeIndex: 0,
      nodes: [
        failuresRecorded(
          fileNode(TB.input, 'Call', { ruleChainId: target, forwardMsgToDefaultRuleChain: false }),
        ),
      ],
      connections: [],
    });
    const inA = await api.saveMetadata({ ...calls(b.id.id), ruleChainId: a.id });
    const inB = await api.saveMetadata({ ...calls(a.id.id), ruleChainId: b.id });
    await api.setRoot(a.id.id);
    const device = await newDevice(ctx(), 'looping');
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    // nothing to store, so the device's publish is acknowledged; the chains' failure is in the debug events
    await publishOk(client, 'v1/devices/me/telemetry', { x: 1 });
    const failures = [
      ...(await nodeFailures(p, token, nodeIdByName(inA, 'Call'), device.id.id)),
      ...(await nodeFailures(p, token, nodeIdByName(inB, 'Call'), device.id.id)),
    ];
    expect(failures).toContainEqual(expect.stringMatching(/more than 32 levels deep/));
  });
});

import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../../main/platform/auth/principal.ts';
import { newMsg } from '../../../main/platform/tb-msg.ts';
import {
  CUSTOMER,
  expectTbError,
  okJson,
  useSharedPlatform,
  withLoginPair,
  type ApiPlatform,
} from '../api/api-kit.ts';
import {
  attributes,
  closeAll,
  connect,
  newDevice,
  publish,
  publishOk,
  timeseries,
  type Api,
} from '../transport/mqtt/mqtt-kit.ts';
import { startTestPlatform } from '../../helpers/platform.ts';
import { tempDir } from '../../helpers/temp-dir.ts';

interface NodeJson {
  id: { entityType: 'RULE_NODE'; id: string };
  debugSettings?: { failuresEnabled: boolean; allEnabled: boolean; allEnabledUntil: number };
  type: string;
  name: string;
  debugMode: boolean;
  configuration: Record<string, unknown>;
  additionalInfo?: unknown;
}
interface Metadata {
  ruleChainId: { entityType: 'RULE_CHAIN'; id: string };
  version: number;
  firstNodeIndex: number | null;
  nodes: NodeJson[];
  connections: { fromIndex: number; toIndex: number; type: string }[];
}
interface DebugEvent {
  ts: number;
  direction: 'IN' | 'OUT';
  relation: string | null;
  msgType: string;
  originator: string;
  data: unknown;
  metadata: Record<string, string>;
  error: string | null;
}

const T = {
  switch: 'org.thingsboard.rule.engine.filter.TbMsgTypeSwitchNode',
  timeseries: 'org.thingsboard.rule.engine.telemetry.TbMsgTimeseriesNode',
  attributes: 'org.thingsboard.rule.engine.telemetry.TbMsgAttributesNode',
  log: 'org.thingsboard.rule.engine.action.TbLogNode',
  rpc: 'org.thingsboard.rule.engine.rpc.TbSendRPCRequestNode',
  deviceProfile: 'org.thingsboard.rule.engine.profile.TbDeviceProfileNode',
};

describe('rule chains REST and the root chain behind MQTT ingest', () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let rootId: string;
  let original: Metadata;
  let counter = 0;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    const page = await okJson<{ data: { id: { id: string }; root: boolean }[] }>(
      p.http('/api/ruleChains?pageSize=10&page=0', { token }),
    );
    rootId = page.data.find((c) => c.root)!.id.id;
    original = await okJson<Metadata>(p.http(`/api/ruleChain/${rootId}/metadata`, { token }));
    // Tests edit copies of this and save them one after another: no optimistic version check.
    delete (original as Partial<Metadata>).version;
  });

  afterEach(async () => {
    await closeAll();
    // Put the default chain back (same node ids) for the next test.
    await okJson(
      p.http(`/api/ruleChain/${rootId}/metadata`, {
        method: 'POST',
        token,
        json: { ...original, version: undefined },
      }),
    );
  });

  const save = (metadata: unknown) =>
    p.http('/api/ruleChain/metadata', { method: 'POST', token, json: metadata });
  const api = (): Api => ({ p, token });
  const node = (type: string) => original.nodes.findIndex((n) => n.type === type);

  it('lists the seeded root chain with its first node and ThingsBoard default nodes', async () => {
    const page = await okJson<{
      data: {
        id: { id: string };
        name: string;
        root: boolean;
        type: string;
        firstRuleNodeId: { id: string };
      }[];
      totalElements: number;
    }>(p.http('/api/ruleChains?pageSize=10&page=0', { token }));
    expect(page.data.filter((c) => c.root)).toHaveLength(1);
    const root = page.data.find((c) => c.root)!;
    expect(root).toMatchObject({ name: 'Root Rule Chain', root: true, type: 'CORE' });
    expect(root.firstRuleNodeId.id).toBe(original.nodes[original.firstNodeIndex!]!.id.id);
    expect(original.ruleChainId.id).toBe(rootId);
    expect(original.nodes.map((n) => n.type).sort()).toEqual(
      [T.deviceProfile, T.switch, T.timeseries, T.attributes, T.log, T.log, T.rpc].sort(),
    );
    const sw = node(T.switch);
    const relations = (to: string) =>
      original.connections.filter((c) => c.fromIndex === sw && c.toIndex === node(to)).map((c) => c.type);
    expect(relations(T.timeseries)).toEqual(['Post telemetry']);
    expect(relations(T.attributes)).toEqual(['Post attributes']);
    expect(relations(T.rpc)).toEqual(['RPC Request to Device']);
    expect(
      original.connections
        .filter((c) => c.fromIndex === sw && original.nodes[c.toIndex]!.type === T.log)
        .map((c) => c.type),
    ).toEqual(expect.arrayContaining(['RPC Request from Device', 'Other']));
  });

  it('refuses invalid metadata with 400 naming the field, and keeps the running chain', async () => {
    const attrIndex = node(T.attributes);
    const badScope = structuredClone(original);
    badScope.nodes[attrIndex]!.configuration = { scope: 'NOWHERE' };
    await expectTbError(
      await save(badScope),
      400,
      30,
      new RegExp(`nodes\\[${attrIndex}\\]\\.configuration.*scope`),
    );

    const badTtl = structuredClone(original);
    badTtl.nodes[node(T.timeseries)]!.configuration = { defaultTTL: 'forever' };
    await expectTbError(await save(badTtl), 400, 30, /defaultTTL/);

    const badFirst = { ...structuredClone(original), firstNodeIndex: 99 };
    await expectTbError(await save(badFirst), 400, 30, /firstNodeIndex/);

    const badConnection = structuredClone(original);
    badConnection.connections.push({ fromIndex: 0, toIndex: 42, type: 'Other' });
    await expectTbError(await save(badConnection), 400, 30, /connections\[\d+\]\.toIndex/);

    const noId = { ...structuredClone(original), ruleChainId: undefined };
    await expectTbError(await save(noId), 400, 30, /ruleChainId/);
    const unknown = {
      ...structuredClone(original),
      ruleChainId: { entityType: 'RULE_CHAIN', id: '00000000-0000-4000-8000-000000000000' },
    };
    await expectTbError(await save(unknown), 404, 32);

    // Schema-level problems are 400 too.
    const res = await save({ ...original, nodes: [{ name: 'no type', configuration: {} }] });
    expect(res.status).toBe(400);

    // Nothing changed: telemetry is still stored.
    const device = await newDevice(api(), `chain-still-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/telemetry', { still: 1 });
    expect((await timeseries(api(), device.id.id)).still![0]!.value).toBe(1);
  });

  it('only tenant administrators read or change rule chains', async () => {
    const customer = await p.login(CUSTOMER.username, CUSTOMER.password);
    await expectTbError(await p.http('/api/ruleChains?pageSize=10&page=0', { token: customer }), 403, 20);
    await expectTbError(await p.http(`/api/ruleChain/${rootId}/metadata`, { token: customer }), 403, 20);
    const res = await p.http(`/api/ruleChain/${rootId}/metadata`, {
      method: 'POST',
      token: customer,
      json: original,
    });
    await expectTbError(res, 403, 20);
  });

  it('records debug events of nodes in debug mode for messages from MQTT', async () => {
    const chain = structuredClone(original);
    const ts = node(T.timeseries);
    chain.nodes[ts]!.debugMode = true;
    const before = await okJson<Metadata>(p.http(`/api/ruleChain/${rootId}/metadata`, { token }));
    const saved = await okJson<Metadata>(
      p.http(`/api/ruleChain/${rootId}/metadata`, { method: 'POST', token, json: chain }),
    );
    expect(saved.version).toBe(before.version + 1);
    // ThingsBoard 4.x turns the old flag into debug settings: failures, and everything for 15 minutes.
    expect(saved.nodes[ts]!.debugSettings).toMatchObject({ failuresEnabled: true, allEnabled: false });
    expect(saved.nodes[ts]!.id.id).toBe(original.nodes[ts]!.id.id);
    expect(saved.nodes[ts]!.debugMode).toBe(true);

    const device = await newDevice(api(), `chain-debug-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 4);
    await publishOk(client, 'v1/devices/me/telemetry', { ts: 1_700_000_000_000, values: { level: 3 } });
    const events = await okJson<DebugEvent[]>(
      p.http(`/api/ruleNode/${original.nodes[ts]!.id.id}/debugEvents`, { token }),
    );
    const mine = events.filter((e) => e.originator === `DEVICE ${device.id.id}`);
    expect(mine.map((e) => [e.direction, e.relation, e.msgType])).toEqual([
      ['IN', null, 'POST_TELEMETRY_REQUEST'],
      ['OUT', 'Success', 'POST_TELEMETRY_REQUEST'],
    ]);
    expect(mine[0]!.data).toEqual({ level: 3 });
    expect(mine[0]!.metadata).toMatchObject({ deviceName: device.name, ts: '1700000000000' });
    expect(mine[0]!.error).toBeNull();
    // A node without debug mode records nothing.
    const sw = original.nodes[node(T.switch)]!.id.id;
    expect(await okJson(p.http(`/api/ruleNode/${sw}/debugEvents`, { token }))).toEqual([]);
  });

  it('the saved root chain decides what MQTT ingest does: re-routed, dropped or failed', async () => {
    const chain = structuredClone(original);
    const sw = node(T.switch);
    // Post attributes -> a second Save Attributes node in SERVER_SCOPE; Post telemetry -> nowhere.
    chain.nodes.push({
      ...chain.nodes[node(T.attributes)]!,
      id: undefined as never,
      name: 'Save Server Attributes',
      configuration: { scope: 'SERVER_SCOPE' },
    });
    chain.connections = chain.connections
      .filter((c) => !(c.fromIndex === sw && ['Post attributes', 'Post telemetry'].includes(c.type)))
      .concat([{ fromIndex: sw, toIndex: chain.nodes.length - 1, type: 'Post attributes' }]);
    await okJson(save(chain));

    const device = await newDevice(api(), `chain-route-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/attributes', { routed: 'server' });
    await publishOk(client, 'v1/devices/me/telemetry', { dropped: 1 });
    expect(await attributes(api(), device.id.id, 'CLIENT_SCOPE')).toEqual({});
    expect((await attributes(api(), device.id.id, 'SERVER_SCOPE')).routed).toBe('server');
    expect(await timeseries(api(), device.id.id)).toEqual({});

    // Telemetry into a node that fails on it but stores nothing (RPC call request): acknowledged, as in
    // ThingsBoard, on v5 and on 3.1.1. Attributes into a save node that fails on them (save timeseries):
    // not stored, so v5 gets 0x80 (unspecified error) and 3.1.1 is disconnected.
    const failing = structuredClone(original);
    failing.connections = failing.connections.map((c) => {
      if (c.fromIndex !== sw) return c;
      if (c.type === 'Post telemetry') return { ...c, toIndex: node(T.rpc) };
      if (c.type === 'Post attributes') return { ...c, toIndex: node(T.timeseries) };
      return c;
    });
    await okJson(save(failing));
    await publishOk(client, 'v1/devices/me/telemetry', { fails: 1 });
    const outcome = await publish(client, 'v1/devices/me/attributes', { fails: 1 });
    expect(outcome.code).toBe(0x80);
    expect(outcome.reasonString).toMatch(/Save Timeseries: Unsupported message type POST_ATTRIBUTES_REQUEST/);
    const v3 = await connect(p.urls.mqtt, device.accessToken, 4);
    await publishOk(v3, 'v1/devices/me/telemetry', { fails: 2 });
    expect((await publish(v3, 'v1/devices/me/attributes', { fails: 2 })).code).toBe('closed');
    expect(await timeseries(api(), device.id.id)).toEqual({});
  });
});

describe('root chain seeding', () => {
  it('gives ids to the nodes of a root chain stored without them (older data directories)', async () => {
    const dataDir = tempDir();
    const first = await startTestPlatform({ dataDir });
    const row = first.db.get<{ id: string; metadata: string }>(
      'SELECT id, metadata FROM rule_chains WHERE root = 1',
    )!;
    const stripped = JSON.parse(row.metadata) as { nodes: { id?: unknown }[] };
    for (const n of stripped.nodes) delete n.id;
    await first.db.write((w) =>
      w.run('UPDATE rule_chains SET metadata = ? WHERE id = ?', [JSON.stringify(stripped), row.id]),
    );
    await first.stop();

    const again = await startTestPlatform({ dataDir });
    const token = await again.login();
    const metadata = await okJson<Metadata>(again.http(`/api/ruleChain/${row.id}/metadata`, { token }));
    const ids = metadata.nodes.map((n) => n.id?.id);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const chain = await okJson<{ firstRuleNodeId: { id: string } }>(
      again.http(`/api/ruleChain/${row.id}`, { token }),
    );
    expect(chain.firstRuleNodeId.id).toBe(ids[metadata.firstNodeIndex!]);
  });
});

describe('Save Timeseries node', () => {
  it('refuses telemetry for a device deleted a moment ago, before the deletion is even durable', async () => {
    const p = withLoginPair(await startTestPlatform());
    const token = await p.login();
    const device = await newDevice({ p, token }, 'deleted-soon');
    const engine = p.engine;
    const telemetry = (ts: number) =>
      newMsg(
        'POST_TELEMETRY_REQUEST',
        { entityType: 'DEVICE', id: device.id.id },
        { t: ts },
        {
          deviceName: device.name,
          ts: String(ts),
        },
      );
    // The first message makes the node remember the device.
    expect(await engine.process(telemetry(1))).toEqual([]);
    const admin: Principal = {
      userId: 'test',
      email: 'tenant@thingsboard.org',
      authority: 'TENANT_ADMIN',
      tenantId: p.services.ctx.tenantId,
      customerId: null,
      sessionId: null,
      via: 'JWT',
    };
    // Not awaited: the device is gone from the database now, its deletion is announced only once fsynced.
    const deleting = p.services.devices.delete(device.id.id, admin);
    expect(await engine.process(telemetry(2))).toEqual([
      expect.stringMatching(/Save Timeseries: Device .* not found/) as string,
    ]);
    await deleting;
    expect(p.db.get('SELECT COUNT(*) AS n FROM ts_kv')).toEqual({ n: 0 });
  });
});

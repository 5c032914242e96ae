import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectTbError, okEmpty, okJson, useSharedPlatform, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk, type Api } from '../transport/mqtt/mqtt-kit.ts';
import {
  chainApi,
  chainFile,
  failuresRecorded,
  fileNode,
  nodeFailures,
  nodeIdByName,
  TB,
  type ChainJson,
  type MetadataJson,
} from './chain-kit.ts';

interface Page<T> {
  data: T[];
  totalElements: number;
}

describe("ThingsBoard's rule chain REST", () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let api: ReturnType<typeof chainApi>;
  let rootId: string;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    api = chainApi(p, token);
    rootId = await api.rootId();
  });
  afterEach(async () => {
    await closeAll();
    if ((await api.rootId()) !== rootId) await api.setRoot(rootId);
  });

  const post = <T>(path: string, json?: unknown) => okJson<T>(p.http(path, { method: 'POST', token, json }));
  const get = <T>(path: string) => okJson<T>(p.http(path, { token }));

  it('creates, renames, lists by type and deletes chains; refuses a second root and deleting the root', async () => {
    const created = await post<ChainJson>('/api/ruleChain', { name: 'Thermostats' });
    expect(created).toMatchObject({ name: 'Thermostats', type: 'CORE', root: false, firstRuleNodeId: null });
    expect(await get<MetadataJson>(`/api/ruleChain/${created.id.id}/metadata`)).toMatchObject({
      firstNodeIndex: null,
      nodes: [],
      connections: [],
    });
    const renamed = await post<ChainJson>('/api/ruleChain', { id: created.id, name: 'Thermostats v2' });
    expect(renamed.name).toBe('Thermostats v2');
    const core = await get<Page<ChainJson>>('/api/ruleChains?pageSize=50&page=0&textSearch=Thermostats');
    expect(core.data.map((c) => c.name)).toEqual(['Thermostats v2']);
    const edge = await get<Page<ChainJson>>('/api/ruleChains?pageSize=50&page=0&type=EDGE');
    expect(edge.data.map((c) => [c.name, c.root])).toEqual([['Edge Root Rule Chain', true]]);
    // the same path by ids (the generated client's getRuleChainsByIds), comma-separated
    const byIds = await get<ChainJson[]>(
      `/api/ruleChains?ruleChainIds=${created.id.id},${edge.data[0]!.id.id}`,
    );
    expect(byIds.map((c) => c.name).sort()).toEqual(['Edge Root Rule Chain', 'Thermostats v2']);
    await expectTbError(await p.http('/api/ruleChains', { token }), 400, 31, /'pageSize'/);

    await expectTbError(
      await p.http('/api/ruleChain', { method: 'POST', token, json: { name: 'Second root', root: true } }),
      400,
      30,
      /Another root rule chain is present/,
    );
    await expectTbError(
      await p.http(`/api/ruleChain/${rootId}`, { method: 'DELETE', token }),
      400,
      30,
      /Root Tenant Rule Chain/,
    );
    await okEmpty(p.http(`/api/ruleChain/${created.id.id}`, { method: 'DELETE', token }));
    await expectTbError(await p.http(`/api/ruleChain/${created.id.id}`, { token }), 404, 32);
  });

  it('imports a file as ThingsBoard exports it: an unknown node class is kept, named and fails its messages', async () => {
    const file = chainFile(
      'From production',
      [
        fileNode(TB.switch, 'Switch', { version: 0 }, 100, 100),
        failuresRecorded(fileNode(TB.unknown, 'PE integration downlink', { some: 'setting' }, 400, 100)),
        {
          ...fileNode(
            TB.saveTs,
            'Save',
            { defaultTTL: 0, processingSettings: { type: 'ON_EVERY_MESSAGE' } },
            400,
            250,
          ),
          configurationVersion: 1,
        },
      ],
      [
        { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
        { fromIndex: 0, toIndex: 2, type: 'Post telemetry' },
      ],
    );
    const { ruleChain, metadata } = await api.importFile(file);
    expect(ruleChain).toMatchObject({ name: 'From production', root: false, type: 'CORE' });
    expect(metadata.nodes.map((n) => n.type)).toEqual([TB.switch, TB.unknown, TB.saveTs]);
    expect(metadata.nodes[1]!.configuration).toEqual({ some: 'setting' });
    const status = await get<{ name: string; running: boolean; problem: string | null }[]>(
      `/api/sandboard/ruleChain/${ruleChain.id.id}/nodeStatus`,
    );
    expect(status.map((s) => [s.name, s.running])).toEqual([
      ['Switch', true],
      ['PE integration downlink', false],
      ['Save', true],
    ]);
    expect(status[1]!.problem).toMatch(/TbIntegrationDownlinkNode' is not supported by Sandboard/);

    // Run it as the root: the data is stored by the other branch and the publish acknowledged, as in
    // ThingsBoard; the unsupported node's failure is in its debug events.
    await api.setRoot(ruleChain.id.id);
    const apiCtx: Api = { p, token };
    const device = await newDevice(apiCtx, 'imported-run');
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/telemetry', { level: 4 });
    expect(
      await nodeFailures(p, token, nodeIdByName(metadata, 'PE integration downlink'), device.id.id),
    ).toEqual([expect.stringMatching(/Rule node type .* is not supported/)]);
    const ts = await get<Record<string, { value: string }[]>>(
      `/api/plugins/telemetry/DEVICE/${device.id.id}/values/timeseries?keys=level`,
    );
    expect(ts.level![0]!.value).toBe('4');

    // Exported again, it is the same file (what Sandboard adds, like debug settings, is ThingsBoard's shape).
    const again = await get<ReturnType<typeof chainFile>>(
      `/api/sandboard/ruleChain/${ruleChain.id.id}/export`,
    );
    expect(again.ruleChain).toMatchObject({
      name: 'From production',
      root: false,
      type: 'CORE',
      firstRuleNodeId: null,
    });
    expect(again.metadata.nodes.map((n) => [n.type, n.name, n.configuration])).toEqual(
      file.metadata.nodes.map((n) => [n.type, n.name, n.configuration]),
    );
    expect(again.metadata.connections).toEqual(file.metadata.connections);
    expect(JSON.stringify(again)).not.toMatch(/"id"/);
  });

  it('upgrades older node configurations as ThingsBoard does, and turns old chain links into rule chain nodes', async () => {
    const target = await post<ChainJson>('/api/ruleChain', { name: 'Linked target' });
    const file = chainFile(
      'Old export',
      [
        {
          ...fileNode(TB.renameKeys, 'Rename', { fromMetadata: true, renameKeysMapping: { a: 'b' } }),
          configurationVersion: 0,
        },
        { ...fileNode(TB.checkFields, 'Check', { messageNames: [], metadataNames: [], checkAllKeys: true }) },
      ],
      [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
    );
    const withLinks = {
      ...file,
      metadata: {
        ...file.metadata,
        ruleChainConnections: [
          {
            fromIndex: 1,
            targetRuleChainId: { entityType: 'RULE_CHAIN', id: target.id.id },
            additionalInfo: { layoutX: 1, layoutY: 2 },
            type: 'True',
          },
        ],
      },
    };
    const { metadata } = await api.importFile(withLinks);
    expect(metadata.nodes[0]).toMatchObject({
      configurationVersion: 2,
      configuration: { renameIn: 'METADATA', renameKeysMapping: { a: 'b' } },
    });
    expect(metadata.nodes[2]).toMatchObject({
      type: TB.input,
      name: 'Linked target',
      configuration: { ruleChainId: target.id.id },
    });
    expect(metadata.connections).toContainEqual({ fromIndex: 1, toIndex: 2, type: 'True' });
  });

  it('exports and imports RuleChainData: fresh ids, rule chain nodes follow their chain, overwrite by name', async () => {
    const callee = await api.importFile(chainFile('Callee', [fileNode(TB.output, 'Done', {})], []));
    const caller = await api.importFile(
      chainFile(
        'Caller',
        [
          fileNode(TB.input, 'Call callee', {
            ruleChainId: callee.ruleChain.id.id,
            forwardMsgToDefaultRuleChain: false,
          }),
        ],
        [],
      ),
    );
    const data = await get<{ ruleChains: ChainJson[]; metadata: MetadataJson[] }>(
      '/api/ruleChains/export?limit=100',
    );
    const exportedCallee = data.ruleChains.find((c) => c.name === 'Callee')!;
    expect(exportedCallee.id.id).not.toBe(callee.ruleChain.id.id);
    const exportedCaller = data.metadata[data.ruleChains.findIndex((c) => c.name === 'Caller')]!;
    expect(exportedCaller.nodes[0]!.configuration.ruleChainId).toBe(exportedCallee.id.id);
    expect(exportedCaller.nodes.every((n) => !('id' in n))).toBe(true);

    const subset = {
      ruleChains: data.ruleChains.filter((c) => c.name === 'Callee' || c.name === 'Caller'),
      metadata: data.metadata.filter((m) =>
        ['Callee', 'Caller'].includes(data.ruleChains.find((c) => c.id.id === m.ruleChainId.id)!.name),
      ),
    };
    const fresh = await post<{ ruleChainId: { id: string }; ruleChainName: string; updated?: boolean }[]>(
      '/api/ruleChains/import',
      subset,
    );
    expect(fresh.map((r) => [r.ruleChainName, r.updated ?? false])).toEqual(
      [
        ['Caller', false],
        ['Callee', false],
      ].sort(
        (a, b) =>
          subset.ruleChains.findIndex((c) => c.name === a[0]) -
          subset.ruleChains.findIndex((c) => c.name === b[0]),
      ),
    );
    const newCallee = fresh.find((r) => r.ruleChainName === 'Callee')!.ruleChainId.id;
    const newCaller = fresh.find((r) => r.ruleChainName === 'Caller')!.ruleChainId.id;
    expect(newCallee).not.toBe(callee.ruleChain.id.id);
    expect((await api.metadata(newCaller)).nodes[0]!.configuration.ruleChainId).toBe(newCallee);

    const overwritten = await post<
      { ruleChainId: { id: string }; ruleChainName: string; updated?: boolean }[]
    >('/api/ruleChains/import?overwrite=true', subset);
    expect(overwritten.every((r) => r.updated === true)).toBe(true);
    expect(overwritten.map((r) => r.ruleChainId.id).sort()).toEqual(
      [callee.ruleChain.id.id, caller.ruleChain.id.id].sort(),
    );
  });

  it('output labels and their usage; the device profile chain; the root can move', async () => {
    const callee = await api.importFile(
      chainFile(
        'Labels',
        [
          fileNode(TB.checkFields, 'Check', { messageNames: ['x'] }),
          fileNode(TB.output, 'Hot', {}),
          fileNode(TB.output, 'Cold', {}),
        ],
        [
          { fromIndex: 0, toIndex: 1, type: 'True' },
          { fromIndex: 0, toIndex: 2, type: 'False' },
        ],
      ),
    );
    const id = callee.ruleChain.id.id;
    expect(await get<string[]>(`/api/ruleChain/${id}/output/labels`)).toEqual(['Cold', 'Hot']);
    const caller = await api.importFile(
      chainFile(
        'Uses labels',
        [fileNode(TB.input, 'Classify', { ruleChainId: id }), fileNode(TB.log, 'Log', {})],
        [{ fromIndex: 0, toIndex: 1, type: 'Hot' }],
      ),
    );
    const usage = await get<
      { ruleChainName: string; ruleNodeName: string; labels: string[]; ruleChainId: { id: string } }[]
    >(`/api/ruleChain/${id}/output/labels/usage`);
    expect(usage).toEqual([
      expect.objectContaining({
        ruleChainName: 'Uses labels',
        ruleNodeName: 'Classify',
        labels: ['Hot'],
        ruleChainId: expect.objectContaining({ id: caller.ruleChain.id.id }),
      }),
    ]);

    const dflt = await post<ChainJson>('/api/ruleChain/device/default', { name: 'Thermostat profile chain' });
    expect(dflt).toMatchObject({ name: 'Thermostat profile chain', root: false });
    const md = await api.metadata(dflt.id.id);
    // ThingsBoard 4.2's device profile chain template: the device profile node first, then the switch
    expect(md.nodes[md.firstNodeIndex!]!.type).toBe(TB.deviceProfile);
    const moved = await api.setRoot(dflt.id.id);
    expect(moved.root).toBe(true);
    expect((await get<ChainJson>(`/api/ruleChain/${rootId}`)).root).toBe(false);
  });

  it('edge template root, auto-assignment and assignment to an edge', async () => {
    const edgeChains = await get<Page<ChainJson>>('/api/ruleChains?pageSize=50&page=0&type=EDGE');
    const templateRoot = edgeChains.data.find((c) => c.root)!;
    const extra = await post<ChainJson>('/api/ruleChain', { name: 'Edge extras', type: 'EDGE' });
    await post(`/api/ruleChain/${extra.id.id}/autoAssignToEdge`);
    expect((await get<ChainJson[]>('/api/ruleChain/autoAssignToEdgeRuleChains')).map((c) => c.name)).toEqual([
      'Edge extras',
    ]);
    const edge = await post<{ id: { id: string } }>('/api/edge', { name: 'Chain edge', type: 'default' });
    const assigned = await get<Page<ChainJson>>(
      `/api/edge/${edge.id.id}/ruleChains?pageSize=10&page=0&sortProperty=name&sortOrder=ASC`,
    );
    expect(assigned.data.map((c) => c.name).sort()).toEqual(['Edge Root Rule Chain', 'Edge extras']);

    const other = await post<ChainJson>('/api/ruleChain', { name: 'Edge other', type: 'EDGE' });
    await post(`/api/edge/${edge.id.id}/ruleChain/${other.id.id}`);
    await okJson(p.http(`/api/edge/${edge.id.id}/ruleChain/${extra.id.id}`, { method: 'DELETE', token }));
    const after = await get<Page<ChainJson>>(
      `/api/edge/${edge.id.id}/ruleChains?pageSize=10&page=0&sortProperty=name&sortOrder=ASC`,
    );
    expect(after.data.map((c) => c.name).sort()).toEqual(['Edge Root Rule Chain', 'Edge other']);
    await expectTbError(
      await p.http(`/api/edge/${edge.id.id}/ruleChain/${rootId}`, { method: 'POST', token }),
      400,
      30,
      /non EDGE/,
    );

    const newRoot = await post<ChainJson>(`/api/ruleChain/${other.id.id}/edgeTemplateRoot`);
    expect(newRoot.root).toBe(true);
    expect((await get<ChainJson>(`/api/ruleChain/${templateRoot.id.id}`)).root).toBe(false);
    await okJson(p.http(`/api/ruleChain/${extra.id.id}/autoAssignToEdge`, { method: 'DELETE', token }));
    expect(await get<ChainJson[]>('/api/ruleChain/autoAssignToEdgeRuleChains')).toEqual([]);
    await post(`/api/ruleChain/${templateRoot.id.id}/edgeTemplateRoot`);
  });

  it("lists node descriptors in ThingsBoard's ComponentDescriptor shape, by type and chain type", async () => {
    const filters = await get<
      {
        clazz: string;
        type: string;
        name: string;
        configurationDescriptor: { nodeDefinition: { relationTypes: string[] } };
      }[]
    >('/api/components?componentTypes=FILTER,FLOW&ruleChainType=CORE');
    expect(filters.map((c) => c.clazz)).toEqual(
      expect.arrayContaining([TB.switch, TB.checkFields, TB.input, TB.output]),
    );
    expect(new Set(filters.map((c) => c.type))).toEqual(new Set(['FILTER', 'FLOW']));
    const one = await get<{
      name: string;
      configurationDescriptor: { nodeDefinition: { configDirective: string; relationTypes: string[] } };
    }>(`/api/component/${TB.checkFields}`);
    expect(one.name).toBe('check fields presence');
    expect(one.configurationDescriptor.nodeDefinition).toMatchObject({
      configDirective: 'tbFilterNodeCheckMessageConfig',
      relationTypes: ['True', 'False', 'Failure'],
    });
    const edgeActions = await get<{ clazz: string }[]>('/api/components/ACTION?ruleChainType=EDGE');
    expect(edgeActions.map((c) => c.clazz)).toContain(
      'org.thingsboard.rule.engine.edge.TbMsgPushToCloudNode',
    );
    expect(edgeActions.map((c) => c.clazz)).not.toContain(
      'org.thingsboard.rule.engine.edge.TbMsgPushToEdgeNode',
    );
    await expectTbError(
      await p.http('/api/components?componentTypes=NOPE', { token }),
      400,
      31,
      /ComponentType\.NOPE/,
    );
    await expectTbError(await p.http('/api/component/org.example.Nothing', { token }), 404, 32);
  });

  it('refuses circles and stale versions, as ThingsBoard does', async () => {
    const chain = await api.importFile(
      chainFile(
        'Circles',
        [fileNode(TB.log, 'A', {}), fileNode(TB.log, 'B', {})],
        [{ fromIndex: 0, toIndex: 1, type: 'Success' }],
      ),
    );
    const md = await api.metadata(chain.ruleChain.id.id);
    const circle = { ...md, connections: [...md.connections, { fromIndex: 1, toIndex: 0, type: 'Success' }] };
    await expectTbError(
      await p.http('/api/ruleChain/metadata', { method: 'POST', token, json: circle }),
      400,
      30,
      /circling relations/,
    );
    await api.saveMetadata(md);
    await expectTbError(
      await p.http('/api/ruleChain/metadata', { method: 'POST', token, json: md }),
      409,
      35,
      /already changed/,
    );
    // ThingsBoard's clients send "version": null when they do not know it; and a chain with no first node
    // keeps firstNodeIndex null (neither becomes 0).
    const unversioned = await api.saveMetadata({ ...md, version: null, firstNodeIndex: null });
    expect(unversioned.firstNodeIndex).toBeNull();
    expect((await api.metadata(chain.ruleChain.id.id)).firstNodeIndex).toBeNull();
  });
});

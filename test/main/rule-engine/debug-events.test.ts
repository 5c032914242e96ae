import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { okEmpty, okJson, useSharedPlatform, waitUntilPast, type ApiPlatform } from '../api/api-kit.ts';
import { closeAll, connect, newDevice, publishOk, type Api } from '../transport/mqtt/mqtt-kit.ts';
import { chainApi, chainFile, fileNode, TB, type MetadataJson } from './chain-kit.ts';

interface EventInfo {
  id: { id: string };
  createdTime: number;
  type: string;
  entityId: { entityType: string; id: string };
  body: {
    type: 'IN' | 'OUT';
    entityId: string;
    entityType: string;
    msgId: string;
    msgType: string;
    relationType?: string;
    dataType: string;
    data: string;
    metadata: string;
    error?: string;
    traceId: string;
    parentMsgId?: string;
    ruleChainId: string;
    ruleNodeName: string;
  };
}

const ALL = { failuresEnabled: true, allEnabled: true, allEnabledUntil: 0 };
const OFF = { failuresEnabled: false, allEnabled: false, allEnabledUntil: 0 };

describe("debug events as ThingsBoard shows them (the events API), with ThingsBoard 4.x's debug settings", () => {
  const platform = useSharedPlatform();
  let p: ApiPlatform;
  let token: string;
  let tenantId: string;
  let api: ReturnType<typeof chainApi>;
  let chainId: string;
  let md: MetadataJson;
  let counter = 0;

  beforeAll(async () => {
    p = platform();
    token = await p.login();
    tenantId = p.services.ctx.tenantId;
    api = chainApi(p, token);
    // switch -> split array -> [check fields: True -> save, False -> (nothing)]; json path $.items before it
    const chain = await api.importFile(
      chainFile(
        'Debugged',
        [
          fileNode(TB.switch, 'Switch', { version: 0 }),
          fileNode(TB.jsonPath, 'Items', { jsonPath: '$.items' }),
          fileNode(TB.splitArray, 'Split', { version: 0 }),
          fileNode(TB.checkFields, 'Has v', { messageNames: ['v'], metadataNames: [], checkAllKeys: true }),
          {
            ...fileNode(TB.saveTs, 'Save', {
              defaultTTL: 0,
              processingSettings: { type: 'ON_EVERY_MESSAGE' },
            }),
            configurationVersion: 1,
          },
        ],
        [
          { fromIndex: 0, toIndex: 1, type: 'Post telemetry' },
          { fromIndex: 1, toIndex: 2, type: 'Success' },
          { fromIndex: 2, toIndex: 3, type: 'Success' },
          { fromIndex: 3, toIndex: 4, type: 'True' },
        ],
      ),
    );
    chainId = chain.ruleChain.id.id;
    md = chain.metadata;
    await api.setRoot(chainId);
  });
  afterEach(() => closeAll());

  const ctx = (): Api => ({ p, token });
  const setDebug = async (settings: Record<string, typeof ALL | undefined>) => {
    const current = await api.metadata(chainId);
    md = await api.saveMetadata({
      ...current,
      version: undefined,
      nodes: current.nodes.map((n) => ({
        ...n,
        debugSettings: settings[n.name] ?? OFF,
        debugMode: undefined,
      })),
    });
  };
  const nodeId = (name: string) => md.nodes.find((n) => n.name === name)!.id.id;
  const events = async (name: string, query = '') =>
    (
      await okJson<{ data: EventInfo[]; totalElements: number }>(
        p.http(
          `/api/events/RULE_NODE/${nodeId(name)}/DEBUG_RULE_NODE?tenantId=${tenantId}&pageSize=100&page=0${query}`,
          {
            token,
          },
        ),
      )
    ).data;
  const send = async (payload: unknown) => {
    const device = await newDevice(ctx(), `debug-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    await publishOk(client, 'v1/devices/me/telemetry', payload);
    return device;
  };

  it('records IN and OUT per node with relation, message type, id, originator, data and metadata', async () => {
    await setDebug({ 'Has v': ALL, Items: ALL });
    const device = await send({ ts: 1000, values: { items: [{ v: 1 }, { w: 2 }] } });
    const mine = (await events('Has v', '&sortOrder=ASC')).filter((e) => e.body.entityId === device.id.id);
    // The two split elements run side by side: per message, IN on Success then OUT on True or False.
    const byMsg = new Map<string, EventInfo[]>();
    for (const e of mine) byMsg.set(e.body.msgId, [...(byMsg.get(e.body.msgId) ?? []), e]);
    const paths = [...byMsg.values()].map((list) => list.map((e) => `${e.body.type} ${e.body.relationType}`));
    expect(paths.sort()).toEqual([
      ['IN Success', 'OUT False'],
      ['IN Success', 'OUT True'],
    ]);
    const inEvent = mine.find((e) => e.body.type === 'IN' && JSON.parse(e.body.data).v === 1);
    expect(inEvent).toMatchObject({
      type: 'DEBUG_RULE_NODE',
      entityId: { entityType: 'RULE_NODE', id: nodeId('Has v') },
    });
    expect(inEvent!.body).toMatchObject({
      entityType: 'DEVICE',
      msgType: 'POST_TELEMETRY_REQUEST',
      dataType: 'JSON',
    });
    expect(JSON.parse(inEvent!.body.data)).toEqual({ v: 1 });
    expect(JSON.parse(inEvent!.body.metadata)).toMatchObject({ ts: '1000', deviceName: device.name });

    // Follow the message: the split elements carry the trace of the message that came in.
    const items = (await events('Items')).find(
      (e) => e.body.entityId === device.id.id && e.body.type === 'IN',
    )!;
    const trace = await okJson<{ nodeName: string; direction: string; msgId: string; ruleChainId: string }[]>(
      p.http(`/api/sandboard/ruleEngine/trace/${items.body.msgId}`, { token }),
    );
    expect(trace.slice(0, 2).map((e) => `${e.nodeName} ${e.direction}`)).toEqual(['Items IN', 'Items OUT']);
    expect(
      trace
        .slice(2)
        .map((e) => `${e.nodeName} ${e.direction}`)
        .sort(),
    ).toEqual(['Has v IN', 'Has v IN', 'Has v OUT', 'Has v OUT']);
    const splitIds = new Set(trace.filter((e) => e.nodeName === 'Has v').map((e) => e.msgId));
    expect(splitIds.size).toBe(2);
    expect(splitIds.has(items.body.msgId)).toBe(false);
    expect(
      mine.every((e) => e.body.traceId === items.body.msgId && e.body.parentMsgId === items.body.msgId),
    ).toBe(true);

    // GET /api/ruleNode/{id}/debugIn: the last message that came in.
    const last = await okJson<{ msgType: string; data: string; msgId: string }>(
      p.http(`/api/ruleNode/${nodeId('Has v')}/debugIn`, { token }),
    );
    expect(last.msgId).toBe(mine.filter((e) => e.body.type === 'IN').at(-1)!.body.msgId);
    expect(last.msgType).toBe('POST_TELEMETRY_REQUEST');
  });

  it('failures only: no IN events, the Failure OUT with its error', async () => {
    await setDebug({ Items: { failuresEnabled: true, allEnabled: false, allEnabledUntil: 0 } });
    const ok = await send({ items: [{ v: 1 }] });
    const device = await newDevice(ctx(), `debug-fail-${++counter}`);
    const client = await connect(p.urls.mqtt, device.accessToken, 5);
    // the device is not told (ThingsBoard acknowledges before the chains run): the node's events are
    await publishOk(client, 'v1/devices/me/telemetry', { noItems: 1 });
    const items = await events('Items');
    expect(items.some((e) => e.body.entityId === ok.id.id)).toBe(false);
    const failed = items.filter((e) => e.body.entityId === device.id.id);
    expect(failed.map((e) => [e.body.type, e.body.relationType])).toEqual([['OUT', 'Failure']]);
    expect(failed[0]!.body.error).toMatch(/No results for path: \$\.items/);

    // The events API filter and clear.
    const filtered = await okJson<{ data: EventInfo[] }>(
      p.http(`/api/events/RULE_NODE/${nodeId('Items')}?tenantId=${tenantId}&pageSize=10&page=0`, {
        method: 'POST',
        token,
        json: {
          eventType: 'DEBUG_RULE_NODE',
          msgDirectionType: 'OUT',
          isError: true,
          entityId: device.id.id,
        },
      }),
    );
    expect(filtered.data).toHaveLength(1);
    await okEmpty(
      p.http(`/api/events/RULE_NODE/${nodeId('Items')}/clear`, {
        method: 'POST',
        token,
        json: { eventType: 'DEBUG_RULE_NODE' },
      }),
    );
    expect(await events('Items')).toEqual([]);
  });

  it('"debug all" switches itself off at its deadline; saving caps it at 15 minutes', async () => {
    const until = Date.now() + 1500;
    await setDebug({ Save: { failuresEnabled: false, allEnabled: false, allEnabledUntil: until } });
    const before = await send({ items: [{ v: 1 }] });
    await waitUntilPast(until);
    const after = await send({ items: [{ v: 2 }] });
    const save = await events('Save');
    expect(
      save
        .filter((e) => e.body.entityId === before.id.id)
        .map((e) => e.body.type)
        .sort(),
    ).toEqual(['IN', 'OUT']);
    expect(save.filter((e) => e.body.entityId === after.id.id)).toEqual([]);

    const savedAt = Date.now();
    await setDebug({
      Save: ALL,
      Split: { failuresEnabled: false, allEnabled: false, allEnabledUntil: savedAt + 86_400_000 },
    });
    for (const name of ['Save', 'Split']) {
      const s = md.nodes.find((n) => n.name === name)!.debugSettings!;
      expect(s.allEnabled).toBe(false);
      expect(s.allEnabledUntil).toBeGreaterThanOrEqual(savedAt + 15 * 60_000 - 1000);
      expect(s.allEnabledUntil).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
    }
  });

  it('keeps the last 100 events of a node', async () => {
    await setDebug({ Save: ALL });
    const values = Array.from({ length: 60 }, (_, i) => ({ v: i }));
    await send({ items: values });
    const page = await okJson<{ totalElements: number; data: EventInfo[] }>(
      p.http(
        `/api/events/RULE_NODE/${nodeId('Save')}/DEBUG_RULE_NODE?tenantId=${tenantId}&pageSize=10&page=0`,
        { token },
      ),
    );
    expect(page.totalElements).toBe(100);
    expect(JSON.parse(page.data[0]!.body.data)).toEqual({ v: 59 });
  });
});

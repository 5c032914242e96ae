import { describe, expect, it, onTestFinished } from 'vitest';
import { NODE_TYPES, type RuleChainMetadata } from '../../../shared/rule-engine.ts';
import type { AlarmInfo } from '../../../shared/schemas/alarms.ts';
import { newMsg, type TbMsg } from '../../../main/platform/tb-msg.ts';
import { createNodeRegistry } from '../../../main/rule-engine/node-registry.ts';
import { RuleEngine } from '../../../main/rule-engine/rule-engine.ts';
import { openEdgeServices } from '../../fixtures/edge-test-kit.ts';
import { recorderNode, type Output } from '../../fixtures/rule-node-recorder.ts';

/**
 * The alarm nodes (create alarm, clear alarm, alarm status filter) in the real rule engine over the real
 * alarm service and store. The chain under test is not the root: the root chain records the alarm action
 * messages (ENTITY_CREATED, ENTITY_UPDATED, ALARM_CLEAR) the alarm nodes put into the originator's chain.
 */

type Node = { type: string; name: string; configuration: Record<string, unknown> };
const RECORDED = ['Created', 'Updated', 'Cleared', 'Success', 'True', 'False', 'Failure'];

/** Services, a rule engine whose root chain records what the nodes enqueue, and chains loaded by name. */
async function alarmKit() {
  const env = await openEdgeServices();
  const outputs: Output[] = [];
  const enqueued: Output[] = [];
  const waiters: (() => void)[] = [];
  const engine = new RuleEngine(
    createNodeRegistry([
      recorderNode(outputs),
      { ...recorderNode(enqueued, () => waiters.splice(0).forEach((w) => w())), type: 'test.Enqueued' },
    ]),
    { services: env.services, edgeQueue: env.edgeQueue, log: () => undefined },
  );
  engine.loadChain('root', 'Root', {
    firstNodeIndex: 0,
    nodes: [{ type: 'test.Enqueued', name: 'Enqueued', configuration: { relation: 'Enqueued' } }],
    connections: [],
  });
  engine.setRoot('root');
  onTestFinished(() => engine.stop());
  const device = (await env.services.devices.save({ name: 'boiler' }, env.admin)).id.id;
  return {
    ...env,
    engine,
    device,
    outputs,
    enqueued,
    /**
     * Loads a chain of `nodes` (the first is its first node); each relation of theirs that `connections`
     * does not link goes to a recorder of that name.
     */
    chain(id: string, nodes: Node[], connections: RuleChainMetadata['connections'] = []): void {
      const linked = connections ?? [];
      const toRecorders = nodes.flatMap((_, from) =>
        RECORDED.filter((r) => !linked.some((c) => c.fromIndex === from && c.type === r)).map((r) => ({
          fromIndex: from,
          toIndex: nodes.length + RECORDED.indexOf(r),
          type: r,
        })),
      );
      const recorders = RECORDED.map((r) => ({
        type: 'test.Recorder',
        name: r,
        configuration: { relation: r },
      }));
      engine.loadChain(id, id, {
        firstNodeIndex: 0,
        nodes: [...nodes, ...recorders].map((n, i) => ({
          ...n,
          id: { entityType: 'RULE_NODE', id: `${id}-${i}` },
        })),
        connections: [...linked, ...toRecorders],
      });
    },
    async run(chainId: string, msg: TbMsg) {
      const before = outputs.length;
      const errors = await engine.process({ ...msg, ruleChainId: chainId });
      return { errors, out: outputs.slice(before) };
    },
    /** resolves once `n` action messages reached the root chain */
    async actions(n: number): Promise<Output[]> {
      while (enqueued.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
      return enqueued;
    },
  };
}

/** One chain of `nodes`, run with run(msg). */
async function alarmChain(nodes: Node[], connections?: RuleChainMetadata['connections']) {
  const kit = await alarmKit();
  kit.chain('under-test', nodes, connections);
  return { ...kit, run: (msg: TbMsg) => kit.run('under-test', msg) };
}

const telemetry = (device: string, data: unknown, metadata: Record<string, string> = {}) =>
  newMsg('POST_TELEMETRY_REQUEST', { entityType: 'DEVICE', id: device }, data, {
    deviceName: 'boiler',
    ...metadata,
  });
const relations = (out: Output[]) => out.map((o) => o.relation);
const alarmOf = (o: Output | undefined) => o!.msg.data as AlarmInfo;

const create = (configuration: Record<string, unknown> = {}): Node => ({
  type: NODE_TYPES.createAlarm,
  name: 'Create alarm',
  configuration: {
    alarmType: 'High Temperature',
    severity: 'CRITICAL',
    scriptLang: 'TBEL',
    alarmDetailsBuildTbel: 'return {temperature: msg.temperature};',
    ...configuration,
  },
});
const clear = (configuration: Record<string, unknown> = {}): Node => ({
  type: NODE_TYPES.clearAlarm,
  name: 'Clear alarm',
  configuration: {
    alarmType: 'High Temperature',
    scriptLang: 'JS',
    alarmDetailsBuildJs:
      'var details = JSON.parse(metadata.prevAlarmDetails); details.clearedAt = msg.temperature; return details;',
    ...configuration,
  },
});

describe('create alarm node', () => {
  it('raises a new alarm: Created, an ALARM message with the alarm and isNewAlarm, and ENTITY_CREATED into the root chain', async () => {
    const h = await alarmChain([create()]);
    const msg = telemetry(h.device, { temperature: 81 }, { ts: '1700000000000' });
    const { out, errors } = await h.run(msg);
    expect(errors).toEqual([]);
    expect(relations(out)).toEqual(['Created']);
    const sent = out[0]!.msg;
    expect(sent.type).toBe('ALARM');
    expect(sent.id).toBe(msg.id);
    expect(sent.metadata).toEqual({ deviceName: 'boiler', ts: '1700000000000', isNewAlarm: 'true' });
    const alarm = alarmOf(out[0]);
    expect(alarm).toMatchObject({
      type: 'High Temperature',
      severity: 'CRITICAL',
      originator: { entityType: 'DEVICE', id: h.device },
      status: 'ACTIVE_UNACK',
      details: { temperature: 81 },
      startTs: 1_700_000_000_000,
      endTs: 1_700_000_000_000,
      propagate: false,
    });
    // it is the platform's alarm (the Alarms page and /api/alarm show it)
    expect(
      h.services.alarms.findActive({ entityType: 'DEVICE', id: h.device }, 'High Temperature')?.id,
    ).toEqual(alarm.id);
    const [action] = await h.actions(1);
    expect(action!.msg).toMatchObject({
      type: 'ENTITY_CREATED',
      originator: { entityType: 'DEVICE', id: h.device },
      metadata: { ruleNodeId: 'under-test-0' },
      data: { id: alarm.id, type: 'High Temperature' },
    });
  });

  it("raised again: Updated with isExistingAlarm; the details script sees the active alarm's details; a severity pattern", async () => {
    const h = await alarmChain([
      create({
        dynamicSeverity: true,
        severity: '${level}',
        alarmType: '$[kind] alarm',
        alarmDetailsBuildTbel:
          'var d = {count: 0};\nif (metadata.prevAlarmDetails != null) {\n  d = JSON.parse(metadata.prevAlarmDetails);\n}\nd.count = d.count + 1;\nreturn d;',
      }),
    ]);
    const first = await h.run(telemetry(h.device, { kind: 'Heat' }, { level: 'MAJOR' }));
    expect(relations(first.out)).toEqual(['Created']);
    expect(alarmOf(first.out[0])).toMatchObject({
      type: 'Heat alarm',
      severity: 'MAJOR',
      details: { count: 1 },
    });

    const again = await h.run(telemetry(h.device, { kind: 'Heat' }, { level: 'MAJOR' }));
    expect(relations(again.out)).toEqual(['Updated']);
    expect(again.out[0]!.msg.metadata.isExistingAlarm).toBe('true');
    expect(again.out[0]!.msg.metadata.isNewAlarm).toBeUndefined();
    expect(alarmOf(again.out[0])).toMatchObject({ id: alarmOf(first.out[0]).id, details: { count: 2 } });

    const worse = await h.run(telemetry(h.device, { kind: 'Heat' }, { level: 'CRITICAL' }));
    expect(relations(worse.out)).toEqual(['Updated']);
    expect(alarmOf(worse.out[0])).toMatchObject({ severity: 'CRITICAL', details: { count: 3 } });
    const actions = await h.actions(3);
    expect(actions.map((a) => a.msg.type)).toEqual(['ENTITY_CREATED', 'ENTITY_UPDATED', 'ENTITY_UPDATED']);
  });

  it('the alarm from the message (useMessageAlarmData): its type, severity and propagation; details built only when asked', async () => {
    const h = await alarmChain([create({ useMessageAlarmData: true, overwriteAlarmDetails: false })]);
    const given = {
      type: 'Door open',
      severity: 'WARNING',
      propagate: true,
      propagateRelationTypes: ['Contains'],
      details: { door: 'north' },
    };
    const { out } = await h.run(newMsg('ALARM', { entityType: 'DEVICE', id: h.device }, given, {}));
    expect(relations(out)).toEqual(['Created']);
    expect(alarmOf(out[0])).toMatchObject({ ...given, status: 'ACTIVE_UNACK' });

    const overwrite = await alarmChain([create({ useMessageAlarmData: true, overwriteAlarmDetails: true })]);
    const built = await overwrite.run(
      newMsg('ALARM', { entityType: 'DEVICE', id: overwrite.device }, { ...given, temperature: 7 }, {}),
    );
    expect(alarmOf(built.out[0]).details).toEqual({ temperature: 7 });
  });

  it('failures: a severity pattern that names no severity, a details script that throws, data that is no alarm', async () => {
    const h = await alarmChain([create({ dynamicSeverity: true, severity: '${level}' })]);
    const noLevel = await h.run(telemetry(h.device, { temperature: 90 }));
    expect(relations(noLevel.out)).toEqual(['Failure']);
    expect(noLevel.errors[0]).toMatch(/Used incorrect pattern or Alarm Severity not included in message/);

    const throwing = await alarmChain([
      create({ scriptLang: 'JS', alarmDetailsBuildJs: 'throw new Error("no details today");' }),
    ]);
    const thrown = await throwing.run(telemetry(throwing.device, { temperature: 90 }));
    expect(relations(thrown.out)).toEqual(['Failure']);
    expect(thrown.errors[0]).toMatch(/no details today/);
    expect(
      throwing.services.alarms.findActive({ entityType: 'DEVICE', id: throwing.device }, 'High Temperature'),
    ).toBe(undefined);

    const fromMsg = await alarmChain([create({ useMessageAlarmData: true })]);
    const notAlarm = await fromMsg.run(telemetry(fromMsg.device, [1, 2, 3]));
    expect(relations(notAlarm.out)).toEqual(['Failure']);
    expect(notAlarm.errors[0]).toMatch(/not an alarm/);
  });

  it("a static severity that is not one fails the node's every message, as ThingsBoard's init does", async () => {
    const h = await alarmChain([create({ severity: 'SEVERE' })]);
    const { out, errors } = await h.run(telemetry(h.device, {}));
    expect(relations(out)).toEqual(['Failure']);
    expect(errors[0]).toMatch(/failed to initialize: Incorrect Alarm Severity value: SEVERE/);
  });
});

describe('clear alarm node', () => {
  it('clears the active alarm: Cleared, an ALARM message with isClearedAlarm and the built details, ALARM_CLEAR into the root chain; then False', async () => {
    const h = await alarmKit();
    h.chain('hot', [create()]);
    h.chain('cool', [clear()]);
    const raised = alarmOf((await h.run('hot', telemetry(h.device, { temperature: 85 }))).out[0]);

    const msg = telemetry(h.device, { temperature: 40 });
    const { out, errors } = await h.run('cool', msg);
    expect(errors).toEqual([]);
    expect(relations(out)).toEqual(['Cleared']);
    expect(out[0]!.msg).toMatchObject({
      id: msg.id,
      type: 'ALARM',
      metadata: { deviceName: 'boiler', isClearedAlarm: 'true' },
    });
    expect(alarmOf(out[0])).toMatchObject({
      id: raised.id,
      cleared: true,
      status: 'CLEARED_UNACK',
      details: { temperature: 85, clearedAt: 40 },
    });
    const actions = await h.actions(2);
    expect(actions.map((a) => a.msg.type)).toEqual(['ENTITY_CREATED', 'ALARM_CLEAR']);

    // nothing active any more: the message goes on unchanged with False
    const again = await h.run('cool', msg);
    expect(relations(again.out)).toEqual(['False']);
    expect(again.out[0]!.msg).toEqual({ ...msg, ruleChainId: 'cool' });
  });

  it('an alarm originator clears that alarm; a details script that fails sends the message to Failure and keeps the alarm', async () => {
    const h = await alarmKit();
    h.chain('hot', [create()]);
    h.chain('byId', [
      clear({ alarmType: 'whatever', scriptLang: 'TBEL', alarmDetailsBuildTbel: 'return {};' }),
    ]);
    h.chain('broken', [clear({ alarmDetailsBuildJs: 'return JSON.parse("{");' })]);
    const raised = alarmOf((await h.run('hot', telemetry(h.device, { temperature: 85 }))).out[0]);

    const broken = await h.run('broken', telemetry(h.device, {}));
    expect(relations(broken.out)).toEqual(['Failure']);
    expect(
      h.services.alarms.findActive({ entityType: 'DEVICE', id: h.device }, 'High Temperature')?.id,
    ).toEqual(raised.id);

    const byId = await h.run('byId', newMsg('ALARM_ACK', raised.id, raised, {}));
    expect(relations(byId.out)).toEqual(['Cleared']);
    expect(alarmOf(byId.out[0])).toMatchObject({ id: raised.id, cleared: true });
  });
});

describe('alarm status filter node', () => {
  const check = (alarmStatusList?: string[]): Node => ({
    type: NODE_TYPES.checkAlarmStatus,
    name: 'Alarm status',
    configuration: alarmStatusList ? { alarmStatusList } : {},
  });

  it("True while the message's alarm has one of the statuses, False once it has not", async () => {
    const h = await alarmKit();
    h.chain(
      'hot',
      [create(), check(['ACTIVE_UNACK', 'ACTIVE_ACK'])],
      [{ fromIndex: 0, toIndex: 1, type: 'Created' }],
    );
    h.chain('check', [check(['ACTIVE_UNACK', 'ACTIVE_ACK'])]);
    const raised = await h.run('hot', telemetry(h.device, { temperature: 85 }));
    expect(relations(raised.out)).toEqual(['True']);
    const alarmMsg = raised.out[0]!.msg;

    await h.services.alarms.clear(alarmOf(raised.out[0]).id.id, h.admin);
    const later = await h.run('check', alarmMsg);
    expect(relations(later.out)).toEqual(['False']);
    expect(later.out[0]!.msg.data).toEqual(alarmMsg.data);
  });

  it('Failure for an alarm that does not exist and for data that is no alarm', async () => {
    const h = await alarmChain([check(['CLEARED_ACK'])]);
    const gone = await h.run(
      newMsg(
        'ALARM',
        { entityType: 'DEVICE', id: h.device },
        { id: { entityType: 'ALARM', id: h.device } },
        {},
      ),
    );
    expect(relations(gone.out)).toEqual(['Failure']);
    expect(gone.errors[0]).toMatch(/No such alarm found\./);
    const text = await h.run(telemetry(h.device, 'hot'));
    expect(relations(text.out)).toEqual(['Failure']);
    expect(text.errors[0]).toMatch(/Failed to parse alarm/);
  });
});

describe('push to edge after the alarm nodes', () => {
  it("the edges of the alarm's originator receive the ALARM messages: ADDED, UPDATED, ALARM_CLEAR with the alarm's id", async () => {
    const h = await alarmKit();
    const edge = (await h.services.edges.save({ name: 'site edge' }, h.admin)).id.id;
    await h.services.edges.assign(edge, 'DEVICE', h.device, h.admin);
    const push: Node = {
      type: NODE_TYPES.pushToEdge,
      name: 'Push to edge',
      configuration: { scope: 'SERVER_SCOPE' },
    };
    h.chain(
      'hot',
      [create(), push],
      [
        { fromIndex: 0, toIndex: 1, type: 'Created' },
        { fromIndex: 0, toIndex: 1, type: 'Updated' },
      ],
    );
    h.chain('cool', [clear(), push], [{ fromIndex: 0, toIndex: 1, type: 'Cleared' }]);

    expect((await h.run('hot', telemetry(h.device, { temperature: 85 }))).errors).toEqual([]);
    expect((await h.run('hot', telemetry(h.device, { temperature: 90 }))).errors).toEqual([]);
    expect((await h.run('cool', telemetry(h.device, { temperature: 30 }))).errors).toEqual([]);

    const alarm = h.services.alarms.page({ pageSize: 10, page: 0 }, { originatorIds: [h.device] }).data[0]!;
    const events = h.edgeQueue.page(edge, { pageSize: 100, page: 0, sortOrder: 'ASC' }).data;
    expect(events.map((e) => [e.type, e.action, e.entityId])).toEqual([
      ['ALARM', 'ADDED', alarm.id.id],
      ['ALARM', 'UPDATED', alarm.id.id],
      ['ALARM', 'ALARM_CLEAR', alarm.id.id],
    ]);
    expect(events[1]!.body).toMatchObject({ details: { temperature: 90 }, status: 'ACTIVE_UNACK' });
    expect(events[2]!.body).toMatchObject({ cleared: true });
  });
});
